"""pgq's tables move to a private schema, q_data.

PostgreSQL queues a DDL lock request on a table before it checks that the
caller owns it (CREATE RULE asks for ACCESS EXCLUSIVE, CREATE TRIGGER for
SHARE ROW EXCLUSIVE), and every later access to the table queues behind that
request. With pgq's tables in schema q, every role pgq grants (pgq_viewer
too) could stop every claim and enqueue for as long as any other session held
a read on q.job, and then fail with 42501. In q_data, on which no role but
pgq_owner has USAGE, the name does not resolve (42501) and no lock queue is
joined. Schema q keeps what applications call: the functions and the types
they return. Alembic's version table stays in q (pgq's roles have no rights
on it, and only migrations lock it).

Tables keep their rows, indexes, triggers, identity sequences and storage
parameters (ALTER TABLE ... SET SCHEMA); every function that names a table is
made again from its 0008 copy; the comments that named q.<table> are
rewritten.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04T20:22:10+00:00
"""
from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# Every table pgq owns, and the one standalone sequence (identity and serial
# sequences move with their tables).
TABLES = (
    "queue", "job", "job_history", "session", "reaper_turn", "enqueue_receipt", "schedule",
    "schedule_fire", "queue_slot", "key_slot", "rate_slot", "tally", "throughput",
    "throughput_total", "key_rate_slot",
)
SEQUENCES = ("session_seq",)

MOVE = (
    "create schema q_data;\n"
    "revoke all on schema q_data from public;\n"
    "comment on schema q_data is\n"
    "  'pgq''s tables and sequences, private to pgq''s owner: no role pgq grants has USAGE here, so none can '\n"
    "  'queue a lock on them. Read them through the functions in schema q.';\n"
    + "".join(f"alter table q.{t} set schema q_data;\n" for t in TABLES)
    + "".join(f"alter sequence q.{s} set schema q_data;\n" for s in SEQUENCES)
)
MOVE_BACK = (
    "".join(f"alter table q_data.{t} set schema q;\n" for t in TABLES)
    + "".join(f"alter sequence q_data.{s} set schema q;\n" for s in SEQUENCES)
    + "drop schema q_data;\n"
)
# The comments (sql/schema/) whose text named q.<table>, as 0008 writes them and as 0007 had them.
COMMENTS = """
comment on schema q is
  'pgq: a job queue inside PostgreSQL. Call the functions (q.enqueue, q.claim, q.complete, ...); the '
  'tables are private (schema q_data).';
comment on column q_data.queue.keep_completed is
  'Whether completed jobs are copied to q_data.job_history (dead and cancelled ones always are).';
comment on column q_data.queue.retention is
  'How long q_data.job_history keeps finished jobs of this queue; q.reap deletes older ones.';
comment on table q_data.job is
  'Jobs that are waiting (w), scheduled for later (s) or running (r). Finished jobs move to '
  'q_data.job_history or are deleted.';
comment on column q_data.job.key_slot is
  'The key slot (q_data.key_slot.n) this job holds from admission until it finishes; NULL while held or'
  ' without a key limit.';
comment on column q_data.job.queue_slot is
  'The queue slot (q_data.queue_slot.n) this job holds while running on a queue with a concurrency limit.';
comment on table q_data.tally is
  'Outcomes not yet rolled up into q_data.throughput: c = completed, f = failed (will retry), d = dead.'
  ' Written in the caller''s transaction, moved by q.reap.';
comment on table q_data.throughput is
  'Per queue and minute: jobs completed, failed attempts that will retry, jobs that went dead. Rolled '
  'up from q_data.tally by q.reap; rows older than a day are deleted.';
comment on table q_data.throughput_total is
  'Per queue: jobs completed, failed attempts that will retry and jobs that went dead since `since` '
  '(the first rolled-up outcome). Rolled up from q_data.tally by q.reap.';
"""
OLD_COMMENTS = """
comment on schema q is
  'pgq: a job queue inside PostgreSQL. Call the functions (q.enqueue, q.claim, q.complete, ...); the '
  'tables are private.';
comment on column q.queue.keep_completed is
  'Whether completed jobs are copied to q.job_history (dead and cancelled ones always are).';
comment on column q.queue.retention is
  'How long q.job_history keeps finished jobs of this queue; q.reap deletes older ones.';
comment on table q.job is
  'Jobs that are waiting (w), scheduled for later (s) or running (r). Finished jobs move to '
  'q.job_history or are deleted.';
comment on column q.job.key_slot is
  'The key slot (q.key_slot.n) this job holds from admission until it finishes; NULL while held or '
  'without a key limit.';
comment on column q.job.queue_slot is
  'The queue slot (q.queue_slot.n) this job holds while running on a queue with a concurrency limit.';
comment on table q.tally is
  'Outcomes not yet rolled up into q.throughput: c = completed, f = failed (will retry), d = dead. '
  'Written in the caller''s transaction, moved by q.reap.';
comment on table q.throughput is
  'Per queue and minute: jobs completed, failed attempts that will retry, jobs that went dead. Rolled '
  'up from q.tally by q.reap; rows older than a day are deleted.';
comment on table q.throughput_total is
  'Per queue: jobs completed, failed attempts that will retry and jobs that went dead since `since` '
  '(the first rolled-up outcome). Rolled up from q.tally by q.reap.';
"""

# sql/schema/085_max_lease.sql, with the queues whose lease is over the default cap keeping their lease as cap.
MAX_LEASE = """
alter table q_data.queue add column max_lease interval not null default '1 hour';
update q_data.queue set max_lease = lease where lease > max_lease;
alter table q_data.queue
  add constraint max_lease_is_positive check (max_lease > interval '0'),
  add constraint lease_is_at_most_max_lease check (lease <= max_lease);
comment on column q_data.queue.max_lease is
  'The longest lease q.claim and q.heartbeat accept for this queue (22023 beyond); at least the queue''s default '
  'lease. Default 1 hour: a longer job heartbeats.';
"""
# wake-ups on demand (issue 22): sql/schema/090_waiter.sql, the sessions waiting for a queue's jobs.
WAITER = """
-- Wake-ups on demand (issue 22). PostgreSQL holds one cluster-wide lock
-- through the whole commit of every transaction that sent a NOTIFY, so when
-- every enqueue notified, concurrent producers committed one at a time. Now
-- an enqueue notifies only while a session waits for its queue: a row here,
-- written by q.claim (sql/functions/claim.sql) when a listening claim comes
-- back empty, deleted by the next listening claim of that session that finds
-- jobs, and by q.reap (through q_data.session) once the session has ended.
-- The enqueue trigger only reads it (sql/triggers/notify_enqueued.sql).
-- Keyed by queue name, not id: a worker may wait for a queue nobody has
-- enqueued into yet.
create table q_data.waiter (
  queue        text        not null,
  session_key  integer     not null references q_data.session (key) on delete cascade,
  since        timestamptz not null default clock_timestamp(),
  primary key (queue, session_key)
) with (
  -- A few rows, inserted and deleted on every idle transition of a worker:
  -- keep the dead ones out of the trigger's reads.
  autovacuum_vacuum_threshold = 50,
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_cost_delay = 0
);

comment on table q_data.waiter is
  'Sessions waiting for jobs of a queue: an enqueue into the queue sends NOTIFY pgq only while a row names it. '
  'Written by q.claim with pgq.listening = on and an owner key (a claim that comes back short, or empty with '
  'pgq.wait_when = empty, adds the row; any other claim deletes it); rows of ended sessions go with their '
  'q_data.session row (q.reap).';

revoke all on q_data.waiter from public;
"""

OLD_CONFIGURE = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval,"
    " integer, integer, boolean, integer, interval, text[], integer, interval)"
)
NEW_CONFIGURE = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval,"
    " integer, integer, boolean, integer, interval, text[], integer, interval, interval)"
)


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)



def upgrade() -> None:
    _execute(MOVE)
    # The scheduler's test clock: off unless the database allows it (issue 21 item 7).
    run_frozen("0008", "schema/080_test_clock.sql")
    run_frozen("0008", "internal/schedule_now.sql")
    run_frozen("0008", "internal/cron_longest_gap.sql")
    run_frozen("0008", "functions/allow_test_clock.sql")
    # Admin calls wait at most 2 s for a lock and then say who holds it (issue 21 item 7).
    run_frozen("0008", "internal/lock_wait_failed.sql")
    # Leases capped by the queue's max_lease (issue 21 item 7); a queue whose lease is longer keeps it as its cap.
    _execute(MAX_LEASE)
    _execute(f"drop function {OLD_CONFIGURE};\n")
    # wake-ups on demand (issue 22): an enqueue notifies only queues a session waits for.
    _execute(WAITER)
    run_frozen("0008", "internal/note_wait.sql")
    run_frozen("0008", "functions/cancel.sql")
    run_frozen("0008", "functions/cancel_jobs.sql")
    run_frozen("0008", "functions/claim.sql")
    run_frozen("0008", "functions/complete.sql")
    run_frozen("0008", "functions/complete_many.sql")
    run_frozen("0008", "functions/configure.sql")
    run_frozen("0008", "functions/delete_queue.sql")
    run_frozen("0008", "functions/enqueue.sql")
    run_frozen("0008", "functions/enqueue_many.sql")
    run_frozen("0008", "functions/explain.sql")
    run_frozen("0008", "functions/fail.sql")
    run_frozen("0008", "functions/flow_block_reason.sql")
    run_frozen("0008", "functions/health.sql")
    run_frozen("0008", "functions/heartbeat.sql")
    run_frozen("0008", "functions/job_page.sql")
    run_frozen("0008", "functions/jobs.sql")
    run_frozen("0008", "functions/limits.sql")
    run_frozen("0008", "functions/pause.sql")
    run_frozen("0008", "functions/pause_schedule.sql")
    run_frozen("0008", "functions/purge.sql")
    run_frozen("0008", "functions/reap.sql")
    run_frozen("0008", "functions/release.sql")
    run_frozen("0008", "functions/release_many.sql")
    run_frozen("0008", "functions/resume.sql")
    run_frozen("0008", "functions/resume_schedule.sql")
    run_frozen("0008", "functions/retry.sql")
    run_frozen("0008", "functions/retry_dead.sql")
    run_frozen("0008", "functions/schedule.sql")
    run_frozen("0008", "functions/schedules.sql")
    run_frozen("0008", "functions/session_key.sql")
    run_frozen("0008", "functions/stats.sql")
    run_frozen("0008", "functions/throughput.sql")
    run_frozen("0008", "functions/throughput_totals.sql")
    run_frozen("0008", "functions/unschedule.sql")
    run_frozen("0008", "internal/append_error.sql")
    run_frozen("0008", "internal/claim_holder.sql")
    run_frozen("0008", "internal/claim_under_snapshot.sql")
    run_frozen("0008", "internal/current_claims.sql")
    run_frozen("0008", "internal/ensure_queue.sql")
    run_frozen("0008", "internal/error_entry.sql")
    run_frozen("0008", "internal/finish.sql")
    run_frozen("0008", "internal/fire_schedules.sql")
    run_frozen("0008", "internal/fire_slot.sql")
    run_frozen("0008", "internal/flow_arm.sql")
    run_frozen("0008", "internal/flow_claim.sql")
    run_frozen("0008", "internal/flow_claim_jobs.sql")
    run_frozen("0008", "internal/flow_claim_keyed.sql")
    run_frozen("0008", "internal/flow_configure.sql")
    run_frozen("0008", "internal/flow_pass_key_slot.sql")
    run_frozen("0008", "internal/flow_reasons.sql")
    run_frozen("0008", "internal/flow_sweep.sql")
    run_frozen("0008", "internal/flow_take_key_slot.sql")
    run_frozen("0008", "internal/flow_wake.sql")
    run_frozen("0008", "internal/flow_want.sql")
    run_frozen("0008", "internal/forget_ended_sessions.sql")
    run_frozen("0008", "internal/gone_owners.sql")
    run_frozen("0008", "internal/lock_space.sql")
    run_frozen("0008", "internal/lost_reason.sql")
    run_frozen("0008", "internal/notify_queues.sql")
    run_frozen("0008", "internal/promote_all_due.sql")
    run_frozen("0008", "internal/promote_due.sql")
    run_frozen("0008", "internal/purge_history.sql")
    run_frozen("0008", "internal/purge_receipts.sql")
    run_frozen("0008", "internal/queue_named.sql")
    run_frozen("0008", "internal/roll_up_tally.sql")
    run_frozen("0008", "internal/tally.sql")
    run_frozen("0008", "owner.sql")
    run_frozen("0008", "triggers/flow.sql")
    run_frozen("0008", "triggers/notify_enqueued.sql")
    _execute(COMMENTS)
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    _execute(
        "drop function q.allow_test_clock(boolean);\n"
        "drop function q.cron_longest_gap(q.cron_spec);\n"
        "drop function q.lock_wait_failed(text, text);\n"
        f"drop function {NEW_CONFIGURE};\n"
        "alter table q_data.queue drop column max_lease;\n"
        "drop table q_data.test_clock;\n"
        # wake-ups on demand (issue 22)
        "drop function q.note_wait(text, integer, boolean);\n"
        "drop table q_data.waiter;\n"
    )
    _execute(MOVE_BACK)
    run_frozen("0004", "internal/schedule_now.sql")
    run_frozen("0001", "functions/cancel.sql")
    run_frozen("0006", "functions/cancel_jobs.sql")
    run_frozen("0007", "functions/claim.sql")
    run_frozen("0006", "functions/complete.sql")
    run_frozen("0006", "functions/complete_many.sql")
    run_frozen("0007", "functions/configure.sql")
    run_frozen("0006", "functions/delete_queue.sql")
    run_frozen("0005", "functions/enqueue.sql")
    run_frozen("0005", "functions/enqueue_many.sql")
    run_frozen("0007", "functions/explain.sql")
    run_frozen("0006", "functions/fail.sql")
    run_frozen("0007", "functions/flow_block_reason.sql")
    run_frozen("0007", "functions/health.sql")
    run_frozen("0003", "functions/heartbeat.sql")
    run_frozen("0006", "functions/job_page.sql")
    run_frozen("0006", "functions/jobs.sql")
    run_frozen("0007", "functions/limits.sql")
    run_frozen("0001", "functions/pause.sql")
    run_frozen("0004", "functions/pause_schedule.sql")
    run_frozen("0006", "functions/purge.sql")
    run_frozen("0006", "functions/reap.sql")
    run_frozen("0001", "functions/release.sql")
    run_frozen("0002", "functions/release_many.sql")
    run_frozen("0001", "functions/resume.sql")
    run_frozen("0004", "functions/resume_schedule.sql")
    run_frozen("0005", "functions/retry.sql")
    run_frozen("0006", "functions/retry_dead.sql")
    run_frozen("0004", "functions/schedule.sql")
    run_frozen("0006", "functions/schedules.sql")
    run_frozen("0003", "functions/session_key.sql")
    run_frozen("0006", "functions/stats.sql")
    run_frozen("0006", "functions/throughput.sql")
    run_frozen("0006", "functions/throughput_totals.sql")
    run_frozen("0004", "functions/unschedule.sql")
    run_frozen("0003", "internal/append_error.sql")
    run_frozen("0006", "internal/claim_holder.sql")
    run_frozen("0001", "internal/claim_under_snapshot.sql")
    run_frozen("0002", "internal/current_claims.sql")
    run_frozen("0001", "internal/ensure_queue.sql")
    run_frozen("0003", "internal/error_entry.sql")
    run_frozen("0006", "internal/finish.sql")
    run_frozen("0004", "internal/fire_schedules.sql")
    run_frozen("0004", "internal/fire_slot.sql")
    run_frozen("0007", "internal/flow_arm.sql")
    run_frozen("0007", "internal/flow_claim.sql")
    run_frozen("0005", "internal/flow_claim_jobs.sql")
    run_frozen("0007", "internal/flow_claim_keyed.sql")
    run_frozen("0007", "internal/flow_configure.sql")
    run_frozen("0005", "internal/flow_pass_key_slot.sql")
    run_frozen("0007", "internal/flow_reasons.sql")
    run_frozen("0007", "internal/flow_sweep.sql")
    run_frozen("0007", "internal/flow_take_key_slot.sql")
    run_frozen("0005", "internal/flow_wake.sql")
    run_frozen("0005", "internal/flow_want.sql")
    run_frozen("0003", "internal/forget_ended_sessions.sql")
    run_frozen("0003", "internal/gone_owners.sql")
    run_frozen("0003", "internal/lock_space.sql")
    run_frozen("0001", "internal/lost_reason.sql")
    run_frozen("0003", "internal/notify_queues.sql")
    run_frozen("0003", "internal/promote_all_due.sql")
    run_frozen("0001", "internal/promote_due.sql")
    run_frozen("0003", "internal/purge_history.sql")
    run_frozen("0003", "internal/purge_receipts.sql")
    run_frozen("0006", "internal/queue_named.sql")
    run_frozen("0006", "internal/roll_up_tally.sql")
    run_frozen("0006", "internal/tally.sql")
    run_frozen("0007", "triggers/flow.sql")
    run_frozen("0003", "triggers/notify_enqueued.sql")
    _execute(OLD_COMMENTS)
    run_frozen("0003", "owner.sql")  # last: pgq_owner owns it all
