"""`pgq dashboard` with --database-url repeated: an index of the databases, each one's dashboard under
/db/<name>/, showing and acting on that database only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from conftest import create_database, drop_database, url_for
from dashboard_support import dashboard
from psycopg.conninfo import conninfo_to_dict
from test_dashboard_access import Browserless, is_paused, token


@pytest.fixture
def second_db(pgq_template: str) -> Iterator[str]:
    name = create_database(template=pgq_template)
    yield url_for(name)
    drop_database(name)


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
