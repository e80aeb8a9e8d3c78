"""Restart without re-runs: q.adopt and the reaper's restart grace (issue 25).

A claim's liveness key dies with its backend, and every backend dies with
its server: until 0008 a server restart or a failover made every running
claim look crashed, although its worker was alive and reconnected within a
second (36 duplicate executions over three restarts in RELIABILITY.md's
crash suite). Now q.reap gives claims whose session ended with the server
(registered before q.server_began(), kept in the new one-row table
q_data.server_start) q.restart_grace() (30 s, at most their lease) before it
counts them crashed, and q.adopt lets a reconnected worker move its claims
(id and current token) under its new key. A session that ends while the
server stays up is reaped at once, as before.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04T23:32:19+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# --- begin adopt ---
# sql/schema/052_server_start.sql, as install.sql makes it.
SERVER_START = """
create table q_data.server_start (
  id                boolean     primary key default true,
  postmaster_start  timestamptz not null,
  began_at          timestamptz not null,
  constraint one_row check (id)
);

insert into q_data.server_start (postmaster_start, began_at)
values (pg_catalog.pg_postmaster_start_time(), pg_catalog.pg_postmaster_start_time());

comment on table q_data.server_start is
  'One row: the postmaster start time q.reap last saw and when this server began serving (restart: its start; '
  'promoted standby: when the reaper first noticed). Sessions registered before began_at ended with the server '
  'and get q.restart_grace() before their claims count as crashed.';
comment on column q_data.server_start.postmaster_start is
  'pg_postmaster_start_time() of the server q.reap last ran on.';
comment on column q_data.server_start.began_at is
  'When the server q.reap runs on began serving: its postmaster start after a restart, or the first reap '
  'after a promotion.';

revoke all on q_data.server_start from public;
"""
DROP_ADOPT = """
drop function q.adopt(bigint[], uuid[], integer);
drop function q.server_began();
drop function q.restart_grace();
drop table q_data.server_start;
"""
# --- end adopt ---


def _sql(text: str) -> None:
    op.get_bind().connection.driver_connection.execute(text)


def upgrade() -> None:
    # --- begin adopt ---
    _sql(SERVER_START)
    run_frozen("0009", "internal/restart_grace.sql")
    run_frozen("0009", "internal/server_began.sql")
    run_frozen("0009", "internal/gone_owners.sql")
    run_frozen("0009", "internal/forget_ended_sessions.sql")
    run_frozen("0009", "functions/reap.sql")
    run_frozen("0009", "functions/adopt.sql")
    # --- end adopt ---
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    # --- begin adopt ---
    run_frozen("0008", "functions/reap.sql")
    run_frozen("0008", "internal/forget_ended_sessions.sql")
    run_frozen("0008", "internal/gone_owners.sql")
    _sql(DROP_ADOPT)
    # --- end adopt ---
