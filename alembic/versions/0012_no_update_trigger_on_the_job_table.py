"""No UPDATE trigger on q_data.job (revision 0012).

PostgreSQL fetches and locks the old row again for every UPDATE of a table
that has any BEFORE UPDATE row trigger, before it looks at the trigger's
column list or WHEN clause. 0008-0011's _100_flow_state_changed made every
claim, heartbeat, fail and release pay for it, on every queue, limited or not
(design.md#no-update-trigger-on-the-job-table has the figures). Its two jobs
move into the functions that make the change:

- a running job that stops running without ending (q.fail, q.release,
  q.release_many, q.reap) clears its queue_slot in the same UPDATE and gives
  the slot back through the new q.flow_free_queue_slot (the AFTER DELETE
  trigger, sql/triggers/job_ended.sql, uses it too);
- a keyed job made waiting by an UPDATE (q.promote_due, q.deps_resolve,
  q.unblock, q.flow_configure when a key rate changes) takes a key slot or is
  held through the new q.flow_admit.

q.tg_job__flow keeps only its INSERT branch (_100_flow_admit_inserted).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06T02:47:26+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

# The files that call the new functions, and the new functions themselves.
CHANGED = {  # file: the newest earlier copy (downgrade restores it)
    "functions/fail.sql": "0011",
    "functions/reap.sql": "0011",
    "functions/release.sql": "0008",
    "functions/release_many.sql": "0008",
    "functions/unblock.sql": "0009",
    "internal/deps_resolve.sql": "0011",
    "internal/flow_configure.sql": "0009",
    "internal/promote_due.sql": "0008",
    "triggers/job_ended.sql": "0011",
}
NEW = ("internal/flow_free_queue_slot.sql", "internal/flow_admit.sql")


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    for name in NEW:
        run_frozen("0012", name)
    for name in CHANGED:
        run_frozen("0012", name)
    _execute("drop trigger _100_flow_state_changed on q_data.job;")
    run_frozen("0012", "triggers/flow.sql")  # q.tg_job__flow: the INSERT branch only
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    # 0011's files make their triggers with CREATE TRIGGER (0012's: CREATE OR REPLACE).
    _execute("drop trigger _100_flow_admit_inserted on q_data.job; drop trigger _110_job_ended on q_data.job;")
    run_frozen("0011", "triggers/flow.sql")  # both triggers again
    for name, earlier in CHANGED.items():
        run_frozen(earlier, name)
    _execute("""
drop function q.flow_admit(tid[]);
drop function q.flow_free_queue_slot(integer, smallint);
""")
    run_frozen("0008", "owner.sql")
