"""claim explained

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04T23:32:37+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op  # noqa: F401  (for table deltas)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0009"
down_revision = '0008'
branch_labels = None
depends_on = None

# --- begin claim_explained ---
# A claim that explains itself in one statement (issue 23 item 7); the same
# text as sql/schema/085_claim_explained.sql.
CLAIM_EXPLAINED = """
create type q.explained_claim as (
  id           bigint,
  queue        text,
  payload      jsonb,
  attempt      integer,
  crashes      integer,
  priority     integer,
  token        uuid,
  lease_until  timestamptz,
  blocked      text,
  retry_in     interval
);
comment on type q.explained_claim is
  'A row of q.claim_explained: a claimed job (the q.claimed_job columns; all NULL on the one row of a '
  'claim that got nothing) with blocked (why the claim got fewer than n: concurrency, key_concurrency, '
  'rate, key_rate or paused; NULL when nothing but an empty queue stopped it) and retry_in (with rate or '
  'key_rate: how long until the limit lets the next job start, never zero; NULL otherwise).';
create index job_put_off_idx on q_data.job (queue_id, run_at) where state = 's' and rate_wait;
"""
CLAIM_EXPLAINED_DOWN = """
drop function q.busy_keys(text, integer);
drop function q.claim_explained(text, integer, interval, integer);
drop type q.explained_claim;
drop index q_data.job_put_off_idx;
"""
# --- end claim_explained ---


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    # --- begin claim_explained ---
    _execute(CLAIM_EXPLAINED)
    run_frozen("0009", "functions/claim_explained.sql")
    run_frozen("0009", "internal/flow_claim.sql")
    run_frozen("0009", "internal/flow_claim_keyed.sql")
    # Held is a state people can see (issue 23 item 4): the busiest keys, running jobs of keyed queues.
    run_frozen("0009", "functions/busy_keys.sql")
    run_frozen("0009", "functions/limits.sql")
    # --- end claim_explained ---
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    # --- begin claim_explained ---
    # (the 0008 bodies first: they no longer read job_put_off_idx)
    run_frozen("0008", "internal/flow_claim.sql")
    run_frozen("0008", "internal/flow_claim_keyed.sql")
    run_frozen("0008", "functions/limits.sql")
    _execute(CLAIM_EXPLAINED_DOWN)
    # --- end claim_explained ---
