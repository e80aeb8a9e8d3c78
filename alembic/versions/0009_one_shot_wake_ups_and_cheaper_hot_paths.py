"""One-shot wake-ups and cheaper hot paths

Wake-ups (issue 22): the first producer that sees a queue's waiter rows takes
them (DELETE ... FOR UPDATE SKIP LOCKED, in its own transaction) and sends the
one NOTIFY; the others send none until a worker records a new wait. The same
for q.notify_queues (fail with retry, release, reap); flow control and
q.resume notify through q.notify_always. q.stop_waiting(owner) ends a worker's
waits on a clean stop; the reaper removes ended sessions' waits without waiting
on a producer that holds one.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04T23:34:06+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0009"
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_frozen("0009", "functions/claim.sql")
    run_frozen("0009", "functions/enqueue.sql")
    run_frozen("0009", "functions/resume.sql")
    run_frozen("0009", "functions/stop_waiting.sql")
    run_frozen("0009", "internal/flow_configure.sql")
    run_frozen("0009", "internal/flow_wake.sql")
    run_frozen("0009", "internal/forget_ended_sessions.sql")
    run_frozen("0009", "internal/note_wait.sql")
    run_frozen("0009", "internal/notify_always.sql")
    run_frozen("0009", "internal/notify_queues.sql")
    run_frozen("0009", "triggers/notify_enqueued.sql")
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    run_frozen("0008", "functions/claim.sql")
    run_frozen("0008", "functions/enqueue.sql")
    run_frozen("0008", "functions/resume.sql")
    # --- begin wakeup ---
    op.execute("drop function if exists q.stop_waiting(integer)")
    op.execute("drop function if exists q.notify_always(integer[])")
    # --- end wakeup ---
    run_frozen("0008", "internal/flow_configure.sql")
    run_frozen("0008", "internal/flow_wake.sql")
    run_frozen("0008", "internal/forget_ended_sessions.sql")
    run_frozen("0008", "internal/note_wait.sql")
    run_frozen("0008", "internal/notify_queues.sql")
    run_frozen("0008", "triggers/notify_enqueued.sql")
