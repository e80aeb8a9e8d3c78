create or replace function q.stats(
  exact_up_to   integer default 1000,
  max_queues    integer default 1000,
  after         text    default null,
  include_idle  boolean default false
)
returns setof q.queue_stats
language plpgsql
-- Volatile only because the estimates come from EXPLAIN, which PostgreSQL
-- refuses inside a STABLE function. It writes nothing.
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  -- now(), as before: within one call every queue is judged at one instant.
  v_now      timestamptz := now();
  v_bound    integer := stats.exact_up_to;
  v_active   integer[];
  v_queue    record;
  v_row      q.queue_stats;
  v_due      bigint;
  v_oldest   timestamptz;
  v_due_at   timestamptz;
  v_exact    boolean;
begin
  if v_bound is null or v_bound not between 0 and 1000000000 then
    raise exception 'exact_up_to must be between 0 and 1000000000, got %', coalesce(v_bound::text, 'NULL')
      using errcode = '22023';
  end if;
  if stats.max_queues is null or stats.max_queues not between 1 and 100000 then
    raise exception 'max_queues must be between 1 and 100000, got %', coalesce(stats.max_queues::text, 'NULL')
      using errcode = '22023';
  end if;
  if stats.include_idle is null then
    raise exception 'include_idle must be true or false, got NULL' using errcode = '22004';
  end if;

  -- Which queues are active (design.md#queue-names-cost-nothing-when-idle): 0007 visited every q_data.queue
  -- row with a dozen index probes each, ~0.1 ms per queue (11 s at 100,000
  -- names a producer once used). Now the queues with jobs, history, recent
  -- outcomes or a schedule are found set-wise: one probe per such queue in
  -- each index (a skip scan: the next queue_id above the last), so idle names
  -- cost a filter on their q_data.queue row only. "Recent" is the last hour
  -- of q_data.throughput (plus the outcomes not rolled up yet).
  if not stats.include_idle then
    v_active := array(
      with recursive
        w (id) as (
          (select j.queue_id from q_data.job j where j.state = 'w' order by j.queue_id limit 1)
          union all
          select (select j.queue_id from q_data.job j where j.state = 'w' and j.queue_id > w.id
                   order by j.queue_id limit 1)
            from w where w.id is not null),
        s (id) as (
          (select j.queue_id from q_data.job j where j.state = 's' order by j.queue_id limit 1)
          union all
          select (select j.queue_id from q_data.job j where j.state = 's' and j.queue_id > s.id
                   order by j.queue_id limit 1)
            from s where s.id is not null),
        h (id) as (
          (select j.queue_id from q_data.job j where j.state = 'h' order by j.queue_id limit 1)
          union all
          select (select j.queue_id from q_data.job j where j.state = 'h' and j.queue_id > h.id
                   order by j.queue_id limit 1)
            from h where h.id is not null),
        p (id) as (
          (select j.queue_id from q_data.job j where j.state in ('p', 'o') order by j.queue_id limit 1)
          union all
          select (select j.queue_id from q_data.job j where j.state in ('p', 'o') and j.queue_id > p.id
                   order by j.queue_id limit 1)
            from p where p.id is not null),
        f (id) as (
          (select x.queue_id from q_data.job_history x order by x.queue_id limit 1)
          union all
          select (select x.queue_id from q_data.job_history x where x.queue_id > f.id
                   order by x.queue_id limit 1)
            from f where f.id is not null)
      select w.id from w where w.id is not null
      union select s.id from s where s.id is not null
      union select h.id from h where h.id is not null
      union select p.id from p where p.id is not null
      union select f.id from f where f.id is not null
      -- Running jobs are few (bounded by the workers' concurrency).
      union select j.queue_id from q_data.job j where j.state = 'r'
      union select t.queue_id from q_data.throughput t where t.minute >= date_trunc('minute', v_now - interval '1 hour')
      union select t.queue_id from q.pending_tally() t
      union select sc.queue_id from q_data.schedule sc);
  end if;

  -- A page of at most max_queues queues in name order, after `after`.
  for v_queue in
    select qq.id, qq.name, qq.paused, coalesce(r.running, 0) as running
      from q_data.queue qq
      -- Running jobs are few (bounded by the workers' concurrency): exact.
      left join (select j.queue_id, count(*) as running
                   from q_data.job j where j.state = 'r' group by j.queue_id) r on r.queue_id = qq.id
     where (stats.after is null or qq.name > stats.after)
       and (stats.include_idle
            or qq.id in (select unnest(v_active))
            -- Settings other than the defaults (sql/schema/030_tables.sql,
            -- 065_flow.sql, 075_key_rate.sql); the same test as
            -- q.forget_idle_queues, which keeps such a queue.
            or qq.paused or qq.lease <> interval '5 minutes' or qq.max_attempts <> 5 or qq.max_crashes <> 3
            or qq.backoff_base <> interval '1 second' or qq.backoff_max <> interval '1 hour'
            or qq.keep_completed or qq.retention <> interval '7 days'
            or qq.concurrency is not null or qq.key_concurrency is not null or qq.ordered
            or qq.rate is not null or qq.key_rate is not null)
     order by qq.name
     limit stats.max_queues
  loop
    v_row.queue := v_queue.name;
    v_row.paused := v_queue.paused;
    v_row.running := v_queue.running;

    -- Waiting: the queue's range of the claim index, then the due scheduled
    -- jobs the reaper has not promoted yet (they are waiting too).
    -- Counting the hot table took 2.6 s at 10M waiting jobs (one pass, every
    -- call). Now each count reads at most exact_up_to + 1 index entries of its
    -- queue, and a longer line gets the planner's estimate instead (waiting_exact
    -- and friends say which): about 45 ms for 100 queues of 100,000 (`make bench`,
    -- bench/measures/observe.py).
    select count(*) into v_row.waiting
      from (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'w' limit v_bound + 1) x;
    v_row.waiting_exact := v_row.waiting <= v_bound;
    if not v_row.waiting_exact then
      v_row.waiting := greatest(v_bound + 1, q.estimate_rows(format(
        'select from q_data.job j where j.queue_id = %s and j.state = %L', v_queue.id, 'w')));
    end if;
    select count(*) into v_due
      from (select from q_data.job j
             where j.queue_id = v_queue.id and j.state = 's' and j.run_at <= v_now limit v_bound + 1) x;
    v_exact := v_due <= v_bound;
    if not v_exact then
      v_due := greatest(v_bound + 1, q.estimate_rows(format(
        'select from q_data.job j where j.queue_id = %s and j.state = %L and j.run_at <= %L', v_queue.id, 's', v_now)));
    end if;
    v_row.waiting := v_row.waiting + v_due;
    v_row.waiting_exact := v_row.waiting_exact and v_exact;

    -- Held jobs (flow control: their concurrency key's slots are taken), on
    -- their own since 0008 (design.md#held-jobs-are-visible: a "waiting 3" whose list showed none):
    -- outside the claim index, in their own index (job_held_idx).
    select count(*) into v_row.held
      from (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'h' limit v_bound + 1) x;
    v_row.held_exact := v_row.held <= v_bound;
    if not v_row.held_exact then
      v_row.held := greatest(v_bound + 1, q.estimate_rows(format(
        'select from q_data.job j where j.queue_id = %s and j.state = %L', v_queue.id, 'h')));
    end if;

    -- Pending (waiting for parents) and on hold (a parent failed under the
    -- hold policy), since revision 0010: outside the claim index, in
    -- job_pending_queue_idx.
    select count(*) into v_row.pending
      from (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'p' limit v_bound + 1) x;
    v_row.pending_exact := v_row.pending <= v_bound;
    if not v_row.pending_exact then
      v_row.pending := greatest(v_bound + 1, q.estimate_rows(format(
        'select from q_data.job j where j.queue_id = %s and j.state = %L', v_queue.id, 'p')));
    end if;
    select count(*) into v_row.on_hold
      from (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'o' limit v_bound + 1) x;
    v_row.on_hold_exact := v_row.on_hold <= v_bound;
    if not v_row.on_hold_exact then
      v_row.on_hold := greatest(v_bound + 1, q.estimate_rows(format(
        'select from q_data.job j where j.queue_id = %s and j.state = %L', v_queue.id, 'o')));
    end if;

    select count(*) into v_row.scheduled
      from (select from q_data.job j
             where j.queue_id = v_queue.id and j.state = 's' and j.run_at > v_now limit v_bound + 1) x;
    v_row.scheduled_exact := v_row.scheduled <= v_bound;
    if not v_row.scheduled_exact then
      v_row.scheduled := greatest(v_bound + 1, q.estimate_rows(format(
        'select from q_data.job j where j.queue_id = %s and j.state = %L and j.run_at > %L', v_queue.id, 's', v_now)));
    end if;

    select count(*) into v_row.dead
      from (select from q_data.job_history h where h.queue_id = v_queue.id and h.state = 'dead' limit v_bound + 1) x;
    v_row.dead_exact := v_row.dead <= v_bound;
    if not v_row.dead_exact then
      v_row.dead := greatest(v_bound + 1, q.estimate_rows(format(
        'select from q_data.job_history h where h.queue_id = %s and h.state = %L', v_queue.id, 'dead')));
    end if;

    -- Oldest due job, exact: the claim index is sorted by priority first, so
    -- the oldest job is the first entry of one of the priorities. Visit each
    -- priority present (a skip scan: one probe per priority, at most 1000).
    with recursive p (priority, depth) as (
      (select j.priority, 1
         from q_data.job j where j.queue_id = v_queue.id and j.state = 'w'
        order by j.priority desc, j.run_at limit 1)
      union all
      select (select j.priority from q_data.job j
               where j.queue_id = v_queue.id and j.state = 'w' and j.priority < p.priority
               order by j.priority desc, j.run_at limit 1),
             p.depth + 1
        from p where p.priority is not null and p.depth < 1000
    )
    select min((select j.run_at from q_data.job j
                 where j.queue_id = v_queue.id and j.state = 'w' and j.priority = p.priority
                 order by j.priority desc, j.run_at limit 1))
      into v_oldest
      from p where p.priority is not null;
    select j.run_at into v_due_at
      from q_data.job j where j.queue_id = v_queue.id and j.state = 's'
     order by j.run_at limit 1;
    if v_due_at <= v_now then
      v_oldest := least(v_oldest, v_due_at);
    end if;
    -- Clamped: inside a long transaction now() can precede run_at.
    v_row.oldest_waiting := case when v_oldest is not null then greatest(v_now - v_oldest, interval '0') end;

    return next v_row;
  end loop;
end
$$;

comment on function q.stats(integer, integer, text, boolean) is
  'Per active queue, in name order: paused, counts of waiting (due and claimable), held (due, held back by a concurrency key), scheduled (later), running, dead, pending (waiting for parents) and on-hold (a parent failed under the hold policy) jobs, and how long the oldest due job has waited. Active: the queue has jobs, history, settings other than the defaults, a schedule, or an outcome in the last hour; include_idle => true lists every queue. At most max_queues rows (1..100000, default 1000) after the queue named after: pass the last name returned to read the next page. Each count is exact up to exact_up_to (default 1000; 0..1000000000) jobs and the planner''s estimate above (waiting_exact, held_exact, scheduled_exact, dead_exact, pending_exact, on_hold_exact say which; running and oldest_waiting are always exact), so a call stays cheap at millions of jobs and at any number of idle queue names.';

revoke all on function q.stats(integer, integer, text, boolean) from public;
grant execute on function q.stats(integer, integer, text, boolean) to pgq_viewer, pgq_monitor;
