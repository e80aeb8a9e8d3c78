"""Observability: stats that scale, throughput, explain, health, job pages, bulk admin, a viewer role.

q.stats counted the whole hot table on every call (1.5-2.4 s at 10M waiting
jobs); it now counts each queue exactly up to exact_up_to (default 1000) and
takes the planner's estimate above, flagged per count (new columns of
q.queue_stats, so q.stats() is dropped and re-created with its new
argument). Outcomes are tallied in the caller's transaction into the
insert-only q.tally (one inline insert in q.complete, q.fail and q.finish,
part of q.complete_many's DELETE statement) and rolled up by q.reap into
per-minute buckets (q.throughput) and totals (q.throughput_total). New
read-only calls for the new role pgq_viewer (pgq_admin is a member):
q.throughput, q.throughput_totals, q.explain, q.health, q.job_page; q.jobs,
q.stats, q.schedules, q.limits and q.flow_block_reason move to pgq_viewer. Bulk admin for pgq_admin: q.retry_dead,
q.cancel_jobs, q.purge, q.delete_queue.

Edits to shared hot functions, one delimited line each (marked pgq:observe):
q.complete, q.fail, q.finish (the tally insert), q.reap (perform
q.roll_up_tally), q.complete_many (the tally inside its DELETE statement, and
q.tally for the keep_completed loop).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01T15:06:04+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op  # noqa: F401  (for table deltas)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


# Table changes: the role, the tables and the statistics object (schema/070_observe.sql) and
# q.job_page's row type (schema/071_job_page.sql), new files frozen like the functions.
DROP_OLD = """
drop function q.stats();
alter type q.queue_stats add attribute waiting_exact boolean,
                         add attribute scheduled_exact boolean,
                         add attribute dead_exact boolean;
comment on type q.queue_stats is
  'Per-queue counts: waiting (due now), scheduled (later), running, dead; oldest_waiting is how long the oldest '
  'due job has waited. *_exact says whether a count is exact or the planner''s estimate (running is always exact).';
"""
# Grants: the reads are for viewers now (pgq_admin still reaches them as a member of pgq_viewer).
READS = (
    "q.jobs(text, text, bigint, integer)",
    "q.schedules(text)",
    "q.limits(text)",
    "q.flow_block_reason(bigint)",
)
REGRANT = "".join(f"revoke execute on function {f} from pgq_admin;\n" for f in READS)
UNGRANT = "".join(
    f"revoke execute on function {f} from pgq_viewer;\ngrant execute on function {f} to pgq_admin;\n" for f in READS
)

DROP_NEW = """
drop function q.cancel_jobs(text, text, jsonb, integer);
drop function q.delete_queue(text);
drop function q.job_page(text, text, jsonb, text, integer, integer);
drop function q.purge(text, integer);
drop function q.retry_dead(text, text, integer);
drop function q.check_max_rows(integer, integer);
drop function q.queue_named(text);
drop type q.job_page_row;
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
revoke usage on schema q from pgq_viewer;
"""


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    run_frozen("0006", "schema/070_observe.sql")
    run_frozen("0006", "schema/071_job_page.sql")
    _execute(DROP_OLD)
    run_frozen("0006", "functions/cancel_jobs.sql")
    run_frozen("0006", "functions/complete.sql")
    run_frozen("0006", "functions/complete_many.sql")
    run_frozen("0006", "functions/delete_queue.sql")
    run_frozen("0006", "functions/fail.sql")
    run_frozen("0006", "functions/flow_block_reason.sql")
    run_frozen("0006", "functions/health.sql")
    run_frozen("0006", "functions/jobs.sql")
    run_frozen("0006", "functions/limits.sql")
    run_frozen("0006", "functions/purge.sql")
    run_frozen("0006", "functions/retry_dead.sql")
    run_frozen("0006", "functions/schedules.sql")
    run_frozen("0006", "functions/throughput.sql")
    run_frozen("0006", "functions/throughput_totals.sql")
    run_frozen("0006", "internal/check_max_rows.sql")
    run_frozen("0006", "internal/claim_holder.sql")
    run_frozen("0006", "internal/estimate_rows.sql")
    run_frozen("0006", "internal/queue_named.sql")
    run_frozen("0006", "internal/tally.sql")
    run_frozen("0006", "internal/roll_up_tally.sql")
    run_frozen("0006", "internal/finish.sql")
    run_frozen("0006", "functions/reap.sql")
    run_frozen("0006", "functions/stats.sql")
    run_frozen("0006", "functions/explain.sql")
    run_frozen("0006", "functions/job_page.sql")
    _execute(REGRANT)
    run_frozen("0003", "owner.sql")  # last: pgq_owner owns it all (tables, types, new functions)


def downgrade() -> None:
    _execute(DROP_NEW)
    _execute(UNGRANT)
    run_frozen("0003", "functions/stats.sql")
    run_frozen("0001", "functions/complete.sql")
    run_frozen("0002", "functions/complete_many.sql")
    run_frozen("0003", "functions/fail.sql")
    run_frozen("0005", "functions/jobs.sql")
    run_frozen("0005", "functions/reap.sql")
    run_frozen("0005", "internal/finish.sql")
    run_frozen("0005", "functions/flow_block_reason.sql")
    run_frozen("0005", "functions/limits.sql")
    run_frozen("0004", "functions/schedules.sql")
    _execute(DROP_TABLES)
    run_frozen("0003", "owner.sql")
    # The role pgq_viewer stays: roles are cluster-wide and other databases may use it.
