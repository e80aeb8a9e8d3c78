-- Job results, progress and awaiting them (revision 0009,
-- design.md#results-and-dependencies).
--
-- A completed job leaves q_data.job (and q_data.job_history keeps it only with
-- keep_completed), so a result needs a home of its own, with its own
-- retention: results are read by whoever enqueued the job, usually soon, and
-- a queue that keeps no history may still want its results for a day.

-- Per-queue settings (q.configure checks them: 22023). Not in the one CHECK
-- constraint of q_data.queue (settings_are_valid, 080_queue_names.sql): every
-- rule there is rebuilt at each INSERT of a queue row, and only q.configure
-- changes these two from their defaults.
alter table q_data.queue
  add column keep_results     interval not null default '1 day',
  add column max_result_size  integer  not null default 1048576;

comment on column q_data.queue.keep_results is
  'How long q_data.job_result keeps a completed job''s result (or completion receipt); q.reap '
  'deletes older ones. Independent of keep_completed and retention.';
comment on column q_data.queue.max_result_size is
  'The largest result (bytes of jsonb, decompressed) q.complete accepts for this queue; 54000 '
  'beyond, and nothing is written.';

-- Progress reported by q.heartbeat. NULL (a bit in the null bitmap) until a
-- worker reports some; kept when the job goes back to waiting (q.fail, a
-- lost claim), so the next attempt can read where the last one got.
alter table q_data.job add column progress jsonb;
alter table q_data.job_history add column progress jsonb;

comment on column q_data.job.progress is
  'The latest progress q.heartbeat(progress => ...) reported; kept across retries. Read it with q.result.';
comment on column q_data.job_history.progress is
  'The job''s progress (q.heartbeat) when it finished.';

-- Completed jobs' results. A row is written by q.complete / q.complete_many
-- when a result is given, or when someone awaits the job (q.await_results),
-- so the plain complete without a result writes nothing more than before.
create table q_data.job_result (
  id           bigint      primary key,
  queue_id     integer     not null,
  result       jsonb,
  progress     jsonb,
  attempt      smallint    not null,
  finished_at  timestamptz not null
);

comment on table q_data.job_result is
  'Completed jobs'' results (NULL: completed without one, kept because someone awaited the job). '
  'q.reap deletes rows older than the queue''s keep_results.';

-- q.reap's purge: per queue, oldest first.
create index job_result_finished_idx on q_data.job_result (queue_id, finished_at);

-- Sessions awaiting jobs (q.await_results). The finishing transaction
-- (q.complete, q.complete_many, q.finish for dead and cancelled jobs) deletes
-- the rows of its jobs and sends NOTIFY pgq_result with the job id: no NOTIFY
-- (and its commit-time lock) when nobody waits. Rows of waits that ended
-- without an outcome go at their `until` (q.reap).
create table q_data.result_waiter (
  job_id  bigint      not null,
  pid     integer     not null,
  until   timestamptz not null,
  primary key (job_id, pid)
) with (
  -- A few rows, inserted and deleted per awaited job: keep dead ones out of
  -- the probe every complete makes.
  autovacuum_vacuum_threshold = 50,
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_cost_delay = 0
);

comment on table q_data.result_waiter is
  'Backends awaiting a job''s outcome (q.await_results): the transaction that completes, kills or '
  'cancels the job deletes its rows and sends NOTIFY pgq_result, payload the job id. q.reap '
  'deletes rows past until.';

revoke all on q_data.job_result, q_data.result_waiter from public;
