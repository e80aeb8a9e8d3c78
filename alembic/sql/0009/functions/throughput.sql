create or replace function q.throughput(since interval default '1 hour')
returns table (queue text, minute timestamptz, completed bigint, failed bigint, dead bigint)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  -- The rolled-up buckets plus what q.reap has not moved yet (q_data.tally is a
  -- few seconds of rows), so the figures are current even with no reaper (on a
  -- standby, q.pending_tally() is empty: the rolled-up figures only).
  select qq.name, b.minute, sum(b.completed)::bigint, sum(b.failed)::bigint, sum(b.dead)::bigint
    from (select t.queue_id, t.minute, t.completed, t.failed, t.dead
            from q_data.throughput t
           where t.minute >= date_trunc('minute', now() - throughput.since)
          union all
          select t.queue_id, date_trunc('minute', t.at),
                 case when t.outcome = 'c' then t.n else 0 end,
                 case when t.outcome = 'f' then t.n else 0 end,
                 case when t.outcome = 'd' then t.n else 0 end
            from q.pending_tally() t
           where t.at >= date_trunc('minute', now() - throughput.since)) b
    join q_data.queue qq on qq.id = b.queue_id
   group by qq.name, b.minute
   order by qq.name, b.minute
$$;

comment on function q.throughput(interval) is
  'Per queue and minute (only minutes with any outcome), since now() - since (default 1 hour, at most a day is kept): jobs completed, failed attempts that will retry, jobs that went dead.';

revoke all on function q.throughput(interval) from public;
grant execute on function q.throughput(interval) to pgq_viewer, pgq_monitor;
