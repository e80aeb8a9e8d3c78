"""pgq's first schema: tables, roles, and the queue functions.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sys
from pathlib import Path

# The helper sits next to versions/; a host application's env.py does not put
# it on sys.path, so the revision does.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0001"
down_revision = None
branch_labels = ("pgq",)
depends_on = None


def upgrade() -> None:
    run_frozen("0001", "install.sql")


def downgrade() -> None:
    run_frozen("0001", "uninstall.sql")
