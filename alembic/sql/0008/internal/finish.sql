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
     run_at, finished_at, dedup_key, errors, token, concurrency_key)
  values
    (finish.job.id, finish.job.queue_id, finish.state, finish.job.payload,
     finish.job.priority, finish.job.attempt, finish.job.crashes,
     finish.job.max_attempts, finish.job.run_at, finish.finished_at,
     finish.job.dedup_key, finish.job.errors,
     -- Kept for cancelled jobs only: q.heartbeat says 'cancelled' to the
     -- holder of that claim and 'lost' to any other token (0002 told anyone
     -- who asked with any token, so a worker could enumerate cancelled ids).
     case when finish.state = 'cancelled' then finish.job.token end,
     finish.job.concurrency_key);
  if finish.state = 'dead' then insert into q_data.tally (queue_id, outcome, n) values (finish.job.queue_id, 'd', 1); end if;  -- pgq:observe (issue 13)
end
$$;

comment on function q.finish(q_data.job, text, timestamptz) is
  'Records a job that left q_data.job as completed, dead or cancelled in q_data.job_history.';

revoke all on function q.finish(q_data.job, text, timestamptz) from public;
