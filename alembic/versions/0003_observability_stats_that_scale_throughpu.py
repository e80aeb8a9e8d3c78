"""Observability: stats that scale, throughput, explain, health, a viewer role.

q.stats counted the whole hot table on every call (2.6 s at 10M waiting
jobs); it now counts each queue exactly up to exact_up_to (default 1000) and
takes the planner's estimate above, flagged per count (new columns of
q.queue_stats). Outcomes are tallied in the caller's transaction (q.tally,
insert-only) and rolled up by q.reap into per-minute buckets
(q.throughput) and totals (q.throughput_total). New read-only calls:
q.throughput, q.throughput_totals, q.explain, q.health, for pgq_viewer (a new
role; pgq_admin is a member).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op  # noqa: F401  (for table deltas)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0003"
down_revision = '0002'
branch_labels = None
depends_on = None


# The tables, the role and the statistics object: a new file, frozen like the functions.
DROP_OLD = """
drop function q.stats();
alter type q.queue_stats add attribute waiting_exact boolean,
                         add attribute scheduled_exact boolean,
                         add attribute dead_exact boolean;
comment on type q.queue_stats is
  'Per-queue counts: waiting (due now), scheduled (later), running, dead; oldest_waiting is how long the oldest '
  'due job has waited. *_exact says whether a count is exact or the planner''s estimate (running is always exact).';
"""
# q.jobs is for viewers now (pgq_admin still reaches it as a member).
REGRANT = "revoke execute on function q.jobs(text, text, bigint, integer) from pgq_admin"

DROP_NEW = """
drop function q.explain(bigint);
drop function q.health();
drop function q.throughput(interval);
drop function q.throughput_totals();
drop function q.stats(integer);
drop function q.claim_holder(integer);
drop function q.estimate_rows(text);
alter type q.queue_stats drop attribute waiting_exact,
                         drop attribute scheduled_exact,
                         drop attribute dead_exact;
comment on type q.queue_stats is
  'Per-queue counts: waiting (due now), scheduled (later), running, dead; oldest_waiting is how long the oldest '
  'due job has waited.';
"""
DROP_TABLES = """
drop function q.roll_up_tally(integer);
drop function q.tally(integer[], "char");
drop table q.tally;
drop table q.throughput;
drop table q.throughput_total;
drop statistics q.job_queue_state_stats;
revoke execute on function q.jobs(text, text, bigint, integer) from pgq_viewer;
revoke usage on schema q from pgq_viewer;
"""


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    run_frozen("0003", "schema/050_observe.sql")
    _execute(DROP_OLD)
    run_frozen("0003", "functions/complete.sql")
    run_frozen("0003", "functions/complete_many.sql")
    run_frozen("0003", "functions/explain.sql")
    run_frozen("0003", "functions/fail.sql")
    run_frozen("0003", "functions/health.sql")
    run_frozen("0003", "functions/jobs.sql")
    run_frozen("0003", "functions/reap.sql")
    run_frozen("0003", "functions/stats.sql")
    run_frozen("0003", "functions/throughput.sql")
    run_frozen("0003", "functions/throughput_totals.sql")
    run_frozen("0003", "internal/claim_holder.sql")
    run_frozen("0003", "internal/estimate_rows.sql")
    run_frozen("0003", "internal/finish.sql")
    run_frozen("0003", "internal/roll_up_tally.sql")
    run_frozen("0003", "internal/tally.sql")
    _execute(REGRANT)


def downgrade() -> None:
    _execute(DROP_NEW)
    run_frozen("0001", "functions/stats.sql")
    run_frozen("0001", "functions/complete.sql")
    run_frozen("0002", "functions/complete_many.sql")
    run_frozen("0001", "functions/fail.sql")
    run_frozen("0001", "functions/jobs.sql")
    run_frozen("0001", "functions/reap.sql")
    run_frozen("0001", "internal/finish.sql")
    _execute(DROP_TABLES)
    # The role pgq_viewer stays: roles are cluster-wide and other databases may use it.
