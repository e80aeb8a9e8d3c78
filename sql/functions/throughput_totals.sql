create or replace function q.throughput_totals()
returns table (queue text, completed bigint, failed bigint, dead bigint, since timestamptz)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  -- Monotonic per queue (what Prometheus counters want): the reaper's running
  -- totals plus the outcomes it has not rolled up yet. A queue with no outcome
  -- yet has zeros and since = NULL.
  select qq.name,
         coalesce(t.completed, 0) + coalesce(p.completed, 0),
         coalesce(t.failed, 0) + coalesce(p.failed, 0),
         coalesce(t.dead, 0) + coalesce(p.dead, 0),
         least(t.since, p.since)
    from q_data.queue qq
    left join q_data.throughput_total t on t.queue_id = qq.id
    left join (select x.queue_id,
                      sum(x.n) filter (where x.outcome = 'c') as completed,
                      sum(x.n) filter (where x.outcome = 'f') as failed,
                      sum(x.n) filter (where x.outcome = 'd') as dead,
                      min(x.at) as since
                 from q_data.tally x group by x.queue_id) p on p.queue_id = qq.id
   order by qq.name
$$;

comment on function q.throughput_totals() is
  'Per queue, since the first recorded outcome (since): jobs completed, failed attempts that will retry, jobs that went dead. Never decreases (until the queue is deleted): for monotonic counters.';

revoke all on function q.throughput_totals() from public;
grant execute on function q.throughput_totals() to pgq_viewer;
