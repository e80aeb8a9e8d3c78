"""No DELETE trigger on q_data.job (revision 0014).

PostgreSQL fetches the old row again for an AFTER ROW trigger and compiles
its WHEN clause for every deleting statement, so every completion paid for
0009-0013's _110_job_ended, on every queue, limited or not (4.5 of
q.complete's 39.7 µs; design.md#few-expressions-per-call). Its work is the
new internal q.job_ended(job, outcome), called right after their DELETE by
the functions that delete jobs (q.complete, q.complete_many, q.fail and
q.reap to dead, q.cancel, q.cancel_jobs, q.purge, q.deps_resolve's cascade)
for the rows with slots, children, parents or a batch; they no longer set
pgq.job_end to tell the trigger how a job ended. As revision 0012 did for
updates.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06T06:42:08+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    run_frozen("0014", "internal/job_ended.sql")  # first: the functions below call it
    run_frozen("0014", "functions/cancel.sql")
    run_frozen("0014", "functions/cancel_jobs.sql")
    run_frozen("0014", "functions/complete.sql")
    run_frozen("0014", "functions/complete_many.sql")
    run_frozen("0014", "functions/fail.sql")
    run_frozen("0014", "functions/purge.sql")
    run_frozen("0014", "functions/reap.sql")
    run_frozen("0014", "internal/deps_resolve.sql")
    run_frozen("0014", "internal/flow_free_queue_slot.sql")
    run_frozen("0014", "triggers/flow.sql")  # its header comment only
    _execute("""
drop trigger _110_job_ended on q_data.job;
drop function q.tg_job__ended();
comment on column q_data.job.has_children is
  'true when some job was enqueued after this one: its end is passed to them (q.job_ended). '
  'NULL otherwise, so jobs without children pay one test.';
""")
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    run_frozen("0011", "functions/cancel.sql")
    run_frozen("0011", "functions/cancel_jobs.sql")
    run_frozen("0013", "functions/complete.sql")
    run_frozen("0010", "functions/complete_many.sql")
    run_frozen("0012", "functions/fail.sql")
    run_frozen("0011", "functions/purge.sql")
    run_frozen("0012", "functions/reap.sql")
    run_frozen("0012", "internal/deps_resolve.sql")
    run_frozen("0012", "internal/flow_free_queue_slot.sql")
    run_frozen("0012", "triggers/flow.sql")
    run_frozen("0012", "triggers/job_ended.sql")  # q.tg_job__ended and _110_job_ended again
    _execute("""
drop function q.job_ended(q_data.job, "char");
comment on column q_data.job.has_children is
  'true when some job was enqueued after this one: its end is passed to them (trigger _110_job_ended). '
  'NULL otherwise, so jobs without children pay one WHEN test.';
""")
    run_frozen("0008", "owner.sql")
