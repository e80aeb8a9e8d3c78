create or replace function q.limits(queue text default null)
returns table (
  queue             text,
  concurrency       integer,
  running           integer,
  key_concurrency   integer,
  ordered           boolean,
  busy_keys         integer,
  held              bigint,
  rate              integer,
  per               interval,
  started_in_window integer,
  next_start_at     timestamptz,
  key_rate          integer,
  key_per           interval
)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  -- Reads only the slot rows (at most concurrency + rate + the busy keys'
  -- slots per queue) and the held jobs through job_held_idx; held is counted
  -- exactly up to 10,000 and reported as 10,001 beyond (a dashboard refresh
  -- must not count a million held rows).
  select qq.name,
         qq.concurrency,
         -- With a concurrency limit, the slots taken; without one, the queue's
         -- running jobs (job_running_idx; until 0009 the slots, so a keyed
         -- queue running 4 jobs said "running 0").
         case when qq.concurrency is not null
              then (select count(*)::integer from q_data.queue_slot s
                     where s.queue_id = qq.id and s.job_id is not null)
              else (select count(*)::integer from q_data.job j
                     where j.queue_id = qq.id and j.state = 'r') end,
         qq.key_concurrency,
         qq.ordered,
         (select count(distinct k.key)::integer from q_data.key_slot k
           where k.queue_id = qq.id and k.job_id is not null),
         (select count(*) from (select from q_data.job j
                                 where j.queue_id = qq.id and j.state = 'h' limit 10001) h),
         qq.rate,
         qq.per,
         coalesce(w.started, 0),
         -- A full window: the slot used longest ago frees first.
         case when w.started >= qq.rate then w.oldest + qq.per end,
         qq.key_rate,
         qq.key_per
    from q_data.queue qq
    -- One read of the queue's rate slots: starts in the window, and the oldest stamp.
    left join lateral (
      select count(*) filter (where r.used_at > clock_timestamp() - qq.per)::integer as started,
             min(r.used_at) as oldest
        from q_data.rate_slot r where r.queue_id = qq.id and r.n <= qq.rate
    ) w on qq.rate is not null
   where (limits.queue is null or qq.name = limits.queue)
     and (qq.concurrency is not null or qq.key_concurrency is not null or qq.rate is not null)
   order by qq.name
$$;

comment on function q.limits(text) is
  'The flow-control limits of every limited queue (or the one named) and how full they are now: running jobs (with a concurrency limit: those holding its slots), keys with a busy slot, held jobs (exact up to 10,000, 10,001 means more), starts in the current rate window and, when the window is full, when the next start is allowed; the per-key rate (key_rate starts per key_per for each concurrency key).';

revoke all on function q.limits(text) from public;
grant execute on function q.limits(text) to pgq_viewer, pgq_monitor;
