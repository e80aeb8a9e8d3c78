"""Flow control inside q.claim: concurrency per queue and per key, ordered keys, rate limits.

Slot rows (q.queue_slot, q.key_slot, q.rate_slot) claimed with SKIP LOCKED,
jobs that record the slot they hold, triggers on q.job that give slots back
on every path that ends a hold, held jobs (state h) for keys whose slots are
taken. q.configure, q.enqueue and q.enqueue_many take new arguments (so they
are dropped and made again); q.claim takes a delimited branch for limited
queues only. See sql/schema/065_flow.sql.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

# Signatures that change: CREATE OR REPLACE would add an overload.
OLD_SIGNATURES = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval)",
    "q.enqueue(text, jsonb, timestamptz, integer, integer, text)",
    "q.enqueue_many(text, jsonb, timestamptz, integer, integer, text[], text)",
)
NEW_SIGNATURES = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval,"
    " integer, integer, boolean, integer, interval, text[])",
    "q.enqueue(text, jsonb, timestamptz, integer, integer, text, text)",
    "q.enqueue_many(text, jsonb, timestamptz, integer, integer, text[], text, text, text[])",
)
NEW_FUNCTIONS = (
    "q.flow_block_reason(bigint)",
    "q.limits(text)",
    "q.check_concurrency_key(text)",
    "q.flow_claim(q.queue, integer, interval, integer)",
    "q.flow_claim_jobs(integer, text, integer, timestamptz, integer, smallint[])",
    "q.flow_configure(integer, integer, integer, boolean, integer, interval, text[])",
    "q.flow_pass_key_slot(integer, text, smallint)",
    "q.flow_sweep(integer, integer)",
    "q.flow_take_key_slot(integer, text, integer, bigint)",
    "q.flow_want(integer)",
    "q.flow_wake(integer)",
    "q.flow_reasons(q.job, q.queue)",
)


def upgrade() -> None:
    run_frozen("0005", "schema/065_flow.sql")
    for signature in OLD_SIGNATURES:
        op.execute(f"drop function {signature}")
    run_frozen("0005", "internal/check_concurrency_key.sql")
    run_frozen("0005", "internal/finish.sql")
    run_frozen("0005", "internal/flow_want.sql")
    run_frozen("0005", "internal/flow_wake.sql")
    run_frozen("0005", "internal/flow_take_key_slot.sql")
    run_frozen("0005", "internal/flow_pass_key_slot.sql")
    run_frozen("0005", "internal/flow_sweep.sql")
    run_frozen("0005", "internal/flow_claim_jobs.sql")
    run_frozen("0005", "internal/flow_claim.sql")
    run_frozen("0005", "internal/flow_configure.sql")
    run_frozen("0005", "internal/flow_reasons.sql")
    run_frozen("0005", "triggers/flow.sql")
    run_frozen("0005", "functions/enqueue.sql")
    run_frozen("0005", "functions/enqueue_many.sql")
    run_frozen("0005", "functions/claim.sql")
    run_frozen("0005", "functions/reap.sql")
    run_frozen("0005", "functions/retry.sql")
    run_frozen("0005", "functions/configure.sql")
    run_frozen("0005", "functions/flow_block_reason.sql")
    run_frozen("0005", "functions/limits.sql")
    run_frozen("0005", "functions/jobs.sql")  # a held job is waiting, not running
    run_frozen("0003", "owner.sql")  # last: pgq_owner owns it all (tables, triggers' functions, new functions)


def downgrade() -> None:
    # Held jobs become plain waiting jobs; limits and keys are forgotten.
    op.execute("drop trigger _100_flow_admit_inserted on q.job")
    op.execute("drop trigger _100_flow_admit_due on q.job")
    op.execute("drop trigger _110_flow_stop on q.job")
    op.execute("drop trigger _110_flow_finish on q.job")
    op.execute("drop function q.tg_job__flow_admit()")
    op.execute("drop function q.tg_job__flow_stop()")
    op.execute("drop function q.tg_job__flow_finish()")
    for signature in NEW_SIGNATURES + NEW_FUNCTIONS:
        op.execute(f"drop function {signature}")
    op.execute("update q.job set state = 'w' where state = 'h'")
    op.execute("drop table q.queue_slot, q.key_slot, q.rate_slot")
    op.execute("drop index q.job_held_idx")
    op.execute(
        "alter table q.job"
        " drop constraint held_job_has_no_key_slot,"
        " drop constraint queue_slot_only_while_running,"
        " drop constraint state_is_known,"
        " add constraint state_is_known check (state in ('w', 's', 'r')),"
        " drop column concurrency_key, drop column key_slot, drop column queue_slot"
    )
    op.execute(
        "comment on column q.job.state is 'w = waiting (due, claimable), s = scheduled (run_at in the future,"
        " or backing off after a failure), r = running (claimed).'"
    )
    op.execute("alter table q.job_history drop column concurrency_key")
    op.execute(
        "alter table q.queue drop column concurrency, drop column key_concurrency, drop column ordered,"
        " drop column rate, drop column per, drop column flow_waiting"
    )
    # 0003's bodies back (configure last changed in 0001).
    run_frozen("0003", "internal/finish.sql")
    run_frozen("0003", "functions/enqueue.sql")
    run_frozen("0003", "functions/enqueue_many.sql")
    run_frozen("0003", "functions/claim.sql")
    run_frozen("0004", "functions/reap.sql")  # schedules' reap
    run_frozen("0003", "functions/retry.sql")
    run_frozen("0001", "functions/configure.sql")
    run_frozen("0001", "functions/jobs.sql")
    run_frozen("0003", "owner.sql")
