create or replace function q.reap(max_jobs integer default 1000)
returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now        timestamptz := clock_timestamp();
  v_gone       integer[] := '{}';
  v_lost       tid[];
  v_job        q_data.job;
  v_recovered  integer := 0;
  v_woken      integer[] := '{}';
begin
  if max_jobs is null or max_jobs not between 1 and 100000 then
    raise exception 'max_jobs must be between 1 and 100000, got %', coalesce(max_jobs::text, 'NULL')
      using errcode = '22023';
  end if;
  -- Every worker calls this about once a second; one at a time does the
  -- work and the others return at once. The turn is a row lock on
  -- q_data.reaper_turn (0003): the advisory lock (q.lock_space(), 0) of 0002 could
  -- be held by any login role, which stopped all reclaiming.
  perform from q_data.reaper_turn t for update skip locked;
  if not found then
    return 0;
  end if;

  -- Sessions that are provably gone (q.gone_owners: no backend with their
  -- pid and backend_start; those that ended with the server after a grace
  -- for their worker to reconnect and q.adopt its claims). Each gone session holds a claim, so max_jobs of
  -- them (never more than 1000) are enough for this call.
  v_gone := q.gone_owners(least(max_jobs, 1000));

  -- Lost claims: dead session or lease run out (the backstop where session
  -- evidence cannot exist). Locked rows are being completed right now: skip.
  -- IN (subquery) is a hashed lookup; "= any(v_gone)" compared each running
  -- job with up to 1000 keys (0.3 s with 50,000 running jobs, 1.1 s under load).
  v_lost := array(
    select j.ctid from q_data.job j
     where j.state = 'r'
       and (j.owner in (select unnest(v_gone)) or j.lease_until < v_now)
     limit max_jobs
       for update skip locked);

  -- A lost claim spends the crash budget, not max_attempts, so a job that
  -- kills its worker every time ends up dead instead of looping forever.
  -- Each one's end goes to q.job_ended (sql/internal/job_ended.sql), for its
  -- slots, children and batch.
  for v_job in
    delete from q_data.job j
     using q_data.queue qq
     where j.ctid = any(v_lost)
       and qq.id = j.queue_id
       and coalesce(j.crashes, 0) + 1 >= qq.max_crashes
    returning j.*
  loop
    if v_job.queue_slot is not null or v_job.key_slot is not null or v_job.has_children
       or v_job.batch_id is not null or v_job.parents_left is not null then
      perform q.job_ended(v_job, 'd');
    end if;
    v_job.crashes := coalesce(v_job.crashes, 0) + 1;
    v_job.errors := q.append_error(v_job.errors, q.error_entry(
      v_job.attempt, 'claim lost (' || q.lost_reason(v_job.owner = any(v_gone)) || '); crash budget spent', true, v_now));
    perform q.finish(v_job, 'dead', v_now);
    v_recovered := v_recovered + 1;
  end loop;

  -- The others go back in line: first their queue slots (queues with a
  -- concurrency limit), read while the rows still hold them.
  perform q.flow_free_queue_slot(j.queue_id, j.queue_slot)
     from q_data.job j
    where j.ctid = any(v_lost)
      and j.queue_slot is not null;
  with requeued as (
    update q_data.job j
       set state = 'w',
           crashes = coalesce(j.crashes, 0) + 1,
           errors = q.append_error(j.errors, q.error_entry(
             j.attempt, 'claim lost (' || q.lost_reason(j.owner = any(v_gone)) || ')', true, v_now)),
           token = null,
           lease_until = null,
           owner = null,
           queue_slot = null
     where j.ctid = any(v_lost)
    returning j.queue_id
  )
  select v_recovered + count(*), array_agg(distinct r.queue_id)
    into v_recovered, v_woken
    from requeued r;

  -- Due scheduled jobs (delays, retries) join the waiting line, and expired
  -- history goes, both in bounded batches per queue, visiting only queues
  -- that have such rows (0003: 0002 looped over every q_data.queue row).
  v_woken := v_woken || q.promote_all_due(max_jobs);
  perform q.purge_history(max_jobs, v_now);
  perform q.purge_receipts(max_jobs, v_now);
  -- Results past their queue's keep_results, and awaits that timed out (design.md#results-and-dependencies).
  perform q.purge_results(max_jobs, v_now);
  perform q.purge_deps(max_jobs, v_now);  -- edges of ended children, fired batches (revision 0009)
  -- Idle queue names go (design.md#queue-names-cost-nothing-when-idle): at most 100 queue rows looked at per
  -- call, so the cost stays flat (100 per second still clears 360,000 an hour).
  perform q.forget_idle_queues(least(max_jobs, 100), v_now);

  -- After the claims above went back: a key without its row counts as gone.
  perform q.forget_ended_sessions(max_jobs);

  -- Flow control (design.md#bounded-flow-control-storage): free key slots go to held jobs or away.
  perform q.flow_sweep(null, max_jobs);

  -- Schedules: one job per due slot, exactly once (see q.fire_schedules).
  perform q.fire_schedules(max_jobs);

  perform q.roll_up_tally(max_jobs * 10);  -- pgq:observe (design.md#stats-without-a-hot-counter): tally -> q_data.throughput
  perform q.notify_queues(v_woken);
  return v_recovered;
end
$$;

comment on function q.reap(integer) is
  'Returns lost claims to their queue: jobs whose owner session is gone (no backend with the pid and backend_start of its q.session_key row) or whose lease has run out. A session that ended with the server (a restart or failover: registered before q.server_began()) counts as gone only after q.restart_grace() (30 s), in which its worker takes its claims back with q.adopt; the lease still ends such a claim. Each spends one unit of the queue''s crash budget (max_crashes); a job that runs out of it is dead. Also moves due scheduled jobs to waiting, deletes history past retention, q.enqueue_many receipts older than 24 hours, results past their queue''s keep_results (q.purge_results), the edges of ended children and fired batches past their queue''s retention (q.purge_deps) and idle queues (q.forget_idle_queues: default settings, nothing in them, no outcome for a day, over an hour old), passes free concurrency-key slots to held jobs (q.flow_sweep) and fires due schedules (q.fire_schedules). At most max_jobs of each per call; returns how many claims it recovered. Safe to call from every worker: one runs, the others return 0 at once.';

revoke all on function q.reap(integer) from public;
grant execute on function q.reap(integer) to pgq_worker;
