"""Few expressions per call: q.claim, q.complete, q.enqueue (revision 0013).

plpgsql compiles every expression a function evaluates again in each
transaction, and a claim, a completion or an enqueue is usually its own
transaction; a test that holds a subquery runs as a whole statement.
q.claim's argument checks are one test, its lease cap shares the paused test,
and a lease-only claim skips the owner's three. q.complete tests its id and
token inline (no nested call with a SET clause) and reads the queue's
keep_completed and the result waiters back from the tally's INSERT.
q.enqueue tests every argument rule in one expression and calls
q.check_job_options only for input that fails it. Same behaviour, same errors
(design.md#few-expressions-per-call has the figures).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06T06:22:38+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_frozen("0013", "functions/claim.sql")
    run_frozen("0013", "functions/complete.sql")
    run_frozen("0013", "functions/enqueue.sql")
    run_frozen("0013", "internal/check_job_options.sql")  # unchanged but for its header comment
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    run_frozen("0010", "functions/claim.sql")
    run_frozen("0010", "functions/complete.sql")
    run_frozen("0009", "functions/enqueue.sql")
    run_frozen("0003", "internal/check_job_options.sql")
    run_frozen("0008", "owner.sql")
