"""docs/reference/sql.md is what the catalog of a database migrated to head says (it cannot drift).

After changing a function, its COMMENT ON, its grants or a type (or merging a branch that does),
run ``make sql-reference`` and commit the page.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_sql_reference  # noqa: E402


@pytest.fixture
def head_url(new_database: Callable[[], str]) -> str:
    from pgq_client import migrations

    url = new_database()
    migrations.upgrade(url)
    return url


def test_the_sql_reference_page_is_current(head_url: str) -> None:
    committed = (ROOT / "docs" / "reference" / "sql.md").read_text()
    assert gen_sql_reference.render_url(head_url) == committed, "docs/reference/sql.md is stale: make sql-reference"


def test_the_reference_names_what_other_clients_need(head_url: str) -> None:
    """Columns an independent client had to guess from examples: explain's message, health's detail, jobs."""
    page = gen_sql_reference.render_url(head_url)
    section = {s.split("\n", 1)[0]: s for s in page.split("\n### ")}
    assert "`message`" in section["q.explain"]
    assert "`detail`" in section["q.health"]
    with psycopg.connect(head_url) as conn:
        columns = [r[0] for r in conn.execute(
            "select a.attname from pg_proc p join pg_type t on t.oid = p.prorettype"
            " join pg_attribute a on a.attrelid = t.typrelid and a.attnum > 0"
            " where p.oid = 'q.jobs'::regproc")]
    assert columns and all(f"`{c}`" in section["q.jobs"] for c in columns)
