"""Observability, part 2: job pages and bulk admin.

q.job_page: one page of a job list in index order (keyset paging), with a
bounded text search. q.retry_dead, q.cancel_jobs, q.purge, q.delete_queue:
bounded bulk admin calls that report counts (pgq_admin). q.explain reports
flow-control limits when q.flow_block_reason is installed. q.tally is
PL/pgSQL (its plan is kept: a third of the SQL function's cost per call),
and the hot functions insert their tally row themselves (no call):
measured in server CPU per claim + complete, the tally cost 8% with the
call, see bench/measures/observe.py for the figure after.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01T13:59:26+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op  # noqa: F401  (for table deltas)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0004"
down_revision = '0003'
branch_labels = None
depends_on = None


DROP_NEW = """
drop function q.cancel_jobs(text, text, jsonb, integer);
drop function q.delete_queue(text);
drop function q.job_page(text, text, jsonb, text, integer, integer);
drop function q.purge(text, integer);
drop function q.retry_dead(text, text, integer);
drop function q.check_max_rows(integer, integer);
drop function q.queue_named(text);
drop type q.job_page_row;
"""


def upgrade() -> None:
    run_frozen("0004", "schema/051_job_page.sql")
    run_frozen("0004", "functions/cancel_jobs.sql")
    run_frozen("0004", "functions/delete_queue.sql")
    run_frozen("0004", "functions/explain.sql")
    run_frozen("0004", "functions/job_page.sql")
    run_frozen("0004", "functions/purge.sql")
    run_frozen("0004", "functions/retry_dead.sql")
    run_frozen("0004", "internal/check_max_rows.sql")
    run_frozen("0004", "internal/queue_named.sql")
    run_frozen("0004", "internal/tally.sql")
    run_frozen("0004", "functions/complete.sql")
    run_frozen("0004", "functions/complete_many.sql")
    run_frozen("0004", "functions/fail.sql")
    run_frozen("0004", "internal/finish.sql")


def downgrade() -> None:
    run_frozen("0003", "functions/explain.sql")
    run_frozen("0003", "internal/tally.sql")
    run_frozen("0003", "functions/complete.sql")
    run_frozen("0003", "functions/complete_many.sql")
    run_frozen("0003", "functions/fail.sql")
    run_frozen("0003", "internal/finish.sql")
    # The raw driver connection, as run_frozen does.
    op.get_bind().connection.driver_connection.execute(DROP_NEW)
