create or replace function q.stats()
returns setof q.queue_stats
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  with live as (
    -- "Waiting" means due now, so due scheduled jobs the reaper has not
    -- promoted yet count as waiting too. One pass over the hot table.
    select x.queue_id,
           count(*) filter (where x.state = 'w' or (x.state = 's' and x.run_at <= now())) as waiting,
           count(*) filter (where x.state = 's' and x.run_at > now()) as scheduled,
           count(*) filter (where x.state = 'r') as running,
           -- Clamped: inside a long transaction now() can precede run_at.
           -- NULL when nothing is due (0002 said 0 s: greatest() skips NULLs).
           case when count(*) filter (where x.state = 'w' or (x.state = 's' and x.run_at <= now())) > 0
                then greatest(now() - min(x.run_at) filter (where x.state = 'w' or (x.state = 's' and x.run_at <= now())),
                              interval '0')
           end as oldest_waiting
      from q.job x
     group by x.queue_id
  ), dead as (
    select d.queue_id, count(*) as dead
      from q.job_history d
     where d.state = 'dead'
     group by d.queue_id
  )
  select qq.name, qq.paused,
         coalesce(live.waiting, 0), coalesce(live.scheduled, 0), coalesce(live.running, 0),
         coalesce(dead.dead, 0), live.oldest_waiting
    from q.queue qq
    left join live on live.queue_id = qq.id
    left join dead on dead.queue_id = qq.id
   order by qq.name
$$;

comment on function q.stats() is
  'Per queue: paused, counts of waiting (due), scheduled (later), running and dead jobs, and how long the oldest due job has waited.';

revoke all on function q.stats() from public;
grant execute on function q.stats() to pgq_admin;
