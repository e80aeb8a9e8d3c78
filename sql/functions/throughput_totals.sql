create or replace function q.throughput_totals()
returns table (queue text, completed bigint, failed bigint, dead bigint, since timestamptz)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  -- Monotonic per queue (what Prometheus counters want): the reaper's running
  -- totals plus the outcomes it has not rolled up yet. Only queues with an
  -- outcome (0008, design.md#queue-names-cost-nothing-when-idle: 0007 gave a row of zeros for every queue
  -- name ever used, 150,000 series at 50,000 names).
  select qq.name,
         coalesce(t.completed, 0) + coalesce(p.completed, 0),
         coalesce(t.failed, 0) + coalesce(p.failed, 0),
         coalesce(t.dead, 0) + coalesce(p.dead, 0),
         least(t.since, p.since)
    from q_data.throughput_total t
    full join (select x.queue_id,
                      sum(x.n) filter (where x.outcome = 'c') as completed,
                      sum(x.n) filter (where x.outcome = 'f') as failed,
                      sum(x.n) filter (where x.outcome = 'd') as dead,
                      min(x.at) as since
                 from q.pending_tally() x group by x.queue_id) p on p.queue_id = t.queue_id
    join q_data.queue qq on qq.id = coalesce(t.queue_id, p.queue_id)
   order by qq.name
$$;

comment on function q.throughput_totals() is
  'Per queue with any recorded outcome, since the first one (since): jobs completed, failed attempts that will retry, jobs that went dead. Never decreases (until the queue is deleted, by q.delete_queue or as an idle queue by q.reap): for monotonic counters.';

revoke all on function q.throughput_totals() from public;
grant execute on function q.throughput_totals() to pgq_viewer, pgq_monitor;
