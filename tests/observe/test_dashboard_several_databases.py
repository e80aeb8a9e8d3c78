"""`pgq dashboard` with --database-url repeated: an index of the databases, each one's dashboard under
/db/<name>/, showing and acting on that database only."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from dashboard_support import dashboard
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from test_dashboard_access import Browserless, is_paused, token


@pytest.fixture
def second_db(pgq_template: str, db_url: str) -> Iterator[str]:
    """A second pgq database on the test server (a copy of the pgq template, as db_url is)."""
    admin = make_conninfo(db_url, dbname="postgres")
    name = f"{pgq_template}_sib_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'create database "{name}" template "{pgq_template}"')
    yield make_conninfo(db_url, dbname=name)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


def test_each_database_has_its_own_pages_and_actions_under_one_dashboard(
        db_url: str, second_db: str, tmp_path: Path) -> None:
    for url, queue in ((db_url, "alpha"), (second_db, "beta")):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("select q.enqueue(%s, '{}')", (queue,))
    first, second = (str(conninfo_to_dict(u)["dbname"]) for u in (db_url, second_db))
    with dashboard(db_url, tmp_path / "d.log", "--database-url", db_url, "--database-url", second_db) as base:
        me = Browserless()
        status, index = me.get(base + "/")
        assert status == 200
        assert f'href="/db/{first}/"' in index and f'href="/db/{second}/"' in index, index
        status, there = me.get(f"{base}/db/{second}/")
        assert status == 200 and "beta" in there and "alpha" not in there.split("<main>", 1)[1]
        assert f'href="/db/{second}/jobs"' in there  # its links stay under its own path
        assert me.post(f"{base}/db/{second}/queues/beta/pause", {"csrf": token(there)}) == 303
        assert is_paused(second_db, "beta")
        # the other database's pages take a token of their own (their session cookie is scoped to their path)
        assert me.post(f"{base}/db/{first}/queues/alpha/pause", {"csrf": token(there)}) == 403
        assert not is_paused(db_url, "alpha")
