"""Schedules: cron and interval jobs kept in SQL, fired once per slot by q.reap.

Tables q.schedule (with next_fire_at, indexed, so a reap turn reads only due
schedules) and q.schedule_fire (the ledger: primary key schedule, slot), the
cron parser and slot arithmetic, the admin API (q.schedule, q.unschedule,
q.pause_schedule, q.resume_schedule, q.schedules) and one call in q.reap.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01T13:30:25+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op  # noqa: F401  (for table deltas)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


INTERNAL = ["schedule_now", "cron_value", "cron_field", "cron_parse", "cron_next", "cron_prev",
            "next_slot", "prev_slot", "fire_slot", "fire_schedules"]
FUNCTIONS = ["schedule", "unschedule", "pause_schedule", "resume_schedule", "schedules"]


def upgrade() -> None:
    # Tables and types first (q.schedules is LANGUAGE sql, checked when created).
    run_frozen("0004", "schema/060_schedules.sql")
    for name in INTERNAL:
        run_frozen("0004", f"internal/{name}.sql")
    for name in FUNCTIONS:
        run_frozen("0004", f"functions/{name}.sql")
    run_frozen("0004", "functions/reap.sql")
    run_frozen("0003", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    run_frozen("0003", "functions/reap.sql")
    op.execute("""
        drop function q.schedules(text);
        drop function q.resume_schedule(text);
        drop function q.pause_schedule(text);
        drop function q.unschedule(text);
        drop function q.schedule(text, text, text, jsonb, text, integer, integer, text, interval);
        drop function q.fire_schedules(integer);
        drop function q.fire_slot(q.schedule, timestamptz);
        drop function q.prev_slot(q.cron_spec, interval, text, timestamptz);
        drop function q.next_slot(q.cron_spec, interval, text, timestamptz);
        drop function q.cron_prev(q.cron_spec, text, timestamptz);
        drop function q.cron_next(q.cron_spec, text, timestamptz);
        drop function q.cron_parse(text);
        drop function q.cron_field(text, text, text, integer, integer, text[]);
        drop function q.cron_value(text, text, text, text, integer, integer, text[]);
        drop function q.schedule_now();
        drop table q.schedule_fire;
        drop table q.schedule;
        drop type q.schedule_info;
        drop type q.cron_spec;
    """)
