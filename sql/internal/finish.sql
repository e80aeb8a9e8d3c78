create or replace function q.finish(job q_data.job, state text, finished_at timestamptz)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- Copies a job that has just left q_data.job into the history table.
  insert into q_data.job_history
    (id, queue_id, state, payload, priority, attempt, crashes, max_attempts,
     run_at, finished_at, dedup_key, errors, token, concurrency_key, progress)
  values
    (finish.job.id, finish.job.queue_id, finish.state, finish.job.payload,
     finish.job.priority, finish.job.attempt, finish.job.crashes,
     finish.job.max_attempts, finish.job.run_at, finish.finished_at,
     finish.job.dedup_key, finish.job.errors,
     -- Kept for cancelled jobs only: q.heartbeat says 'cancelled' to the
     -- holder of that claim and 'lost' to any other token (0002 told anyone
     -- who asked with any token, so a worker could enumerate cancelled ids).
     case when finish.state = 'cancelled' then finish.job.token end,
     finish.job.concurrency_key, finish.job.progress);
  if finish.state = 'dead' then insert into q_data.tally (queue_id, outcome, n) values (finish.job.queue_id, 'd', 1); end if;  -- pgq:observe (design.md#stats-without-a-hot-counter)
  -- Results (design.md#results-and-dependencies): who awaits a dead or cancelled job hears so now
  -- (q.complete wakes the awaiters of completed ones itself).
  if finish.state <> 'completed' then
    perform q.wake_result_waiters(array[finish.job.id]);
  end if;
  -- A running job cancelled: its worker's session hears so at once on its
  -- own channel (it LISTENs on pgq_cancel_<session key>) instead of at its
  -- next heartbeat, which stays the backstop. Only the owning session is
  -- told, and only the job id: nothing another session could not ask for.
  if finish.state = 'cancelled' and finish.job.state = 'r' and finish.job.owner is not null
     and q.notify_allowed() then
    perform pg_notify('pgq_cancel_' || finish.job.owner, finish.job.id::text);
  end if;
end
$$;

comment on function q.finish(q_data.job, text, timestamptz) is
  'Records a job that left q_data.job as completed, dead or cancelled in q_data.job_history; wakes the awaiters of a dead or cancelled job (NOTIFY pgq_result) and tells the owning session of a cancelled running job (NOTIFY pgq_cancel_<session key>, payload the id).';

revoke all on function q.finish(q_data.job, text, timestamptz) from public;
