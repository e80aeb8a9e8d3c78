"""Job results, progress and cancellation pushed to the worker (issue 24, results half).

q.complete / q.complete_many take a result, kept in q_data.job_result for the
queue's keep_results (capped by max_result_size); q.result / q.results say what
became of any job; q.await_results registers the caller for NOTIFY pgq_result;
q.heartbeat / q.heartbeat_many store progress; q.cancel of a running job sends
NOTIFY pgq_cancel_<session key> to its worker.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04T23:32:36+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# --- begin results ---
# sql/schema/095_results.sql, as 0009 writes it.
RESULTS_TABLES = """
-- Job results, progress and awaiting them (issue 24, revision 0009).
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
"""
RESULTS_OLD_SIGNATURES = """
drop function q.complete(bigint, uuid);
drop function q.complete_many(bigint[], uuid[]);
drop function q.heartbeat(bigint, uuid, interval);
drop function q.heartbeat_many(bigint[], uuid[], interval);
drop function q.configure(text, interval, integer, integer, interval, interval, boolean, interval,
  integer, integer, boolean, integer, interval, text[], integer, interval, interval);
"""
RESULTS_DOWN = """
drop function q.await_results(bigint[], interval);
drop function q.result(bigint);
drop function q.results(bigint[]);
drop function q.keep_result(q_data.job, jsonb, timestamptz);
drop function q.purge_results(integer, timestamptz);
drop function q.wake_result_waiters(bigint[]);
drop function q.complete(bigint, uuid, jsonb);
drop function q.complete_many(bigint[], uuid[], jsonb[]);
drop function q.heartbeat(bigint, uuid, interval, jsonb);
drop function q.heartbeat_many(bigint[], uuid[], interval, jsonb[]);
drop function q.configure(text, interval, integer, integer, interval, interval, boolean, interval,
  integer, integer, boolean, integer, interval, text[], integer, interval, interval, interval, integer);
drop table q_data.result_waiter;
drop table q_data.job_result;
alter table q_data.job drop column progress;
alter table q_data.job_history drop column progress;
alter table q_data.queue drop column keep_results, drop column max_result_size;
"""
# --- end results ---


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    # --- begin results ---
    _execute(RESULTS_TABLES)
    _execute(RESULTS_OLD_SIGNATURES)  # new signatures: CREATE OR REPLACE would add overloads
    # --- end results ---
    run_frozen("0009", "functions/await_results.sql")
    run_frozen("0009", "functions/complete.sql")
    run_frozen("0009", "functions/complete_many.sql")
    run_frozen("0009", "functions/configure.sql")
    run_frozen("0009", "functions/explain.sql")
    run_frozen("0009", "functions/heartbeat.sql")
    run_frozen("0009", "functions/heartbeat_many.sql")
    run_frozen("0009", "functions/reap.sql")
    run_frozen("0009", "functions/result.sql")
    run_frozen("0009", "functions/results.sql")
    run_frozen("0009", "internal/finish.sql")
    run_frozen("0009", "internal/forget_idle_queues.sql")
    run_frozen("0009", "internal/keep_result.sql")
    run_frozen("0009", "internal/purge_results.sql")
    run_frozen("0009", "internal/wake_result_waiters.sql")
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    # --- begin results ---
    _execute(RESULTS_DOWN)  # the new functions, then the tables and columns they used
    # --- end results ---
    run_frozen("0008", "functions/complete.sql")
    run_frozen("0008", "functions/complete_many.sql")
    run_frozen("0008", "functions/configure.sql")
    run_frozen("0008", "functions/explain.sql")
    run_frozen("0008", "functions/heartbeat.sql")
    run_frozen("0001", "functions/heartbeat_many.sql")
    run_frozen("0008", "functions/reap.sql")
    run_frozen("0008", "internal/finish.sql")
    run_frozen("0008", "internal/forget_idle_queues.sql")
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns what came back
