"""Fixtures: real databases on the DATABASE_URL server (the embedded cluster by default).

* ``pgq_template`` (session): a database with sql/install.sql applied, used as
  a template so each test gets a fresh copy cheaply.
* ``db_url``: a fresh database for one test, dropped afterwards.
* ``conn``: an autocommit psycopg connection to it (closed afterwards).
* ``new_database``: make more empty databases (for migration tests).
* ``dist`` (session): the sdist and wheel built from python_client/ (tests/packaging/).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

ROOT = Path(__file__).resolve().parents[1]
SERVER_URL = os.environ.get("DATABASE_URL", "")


def url_for(dbname: str) -> str:
    """A connection string for another database on the test server."""
    return make_conninfo(**{**conninfo_to_dict(SERVER_URL), "dbname": dbname})


def admin() -> psycopg.Connection[Any]:
    return psycopg.connect(url_for("postgres"), autocommit=True)


def create_database(template: str | None = None) -> str:
    name = f"pgq_t_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with admin() as conn:
        conn.execute(f'create database "{name}"' + (f' template "{template}"' if template else ""))
    return name


def drop_database(name: str) -> None:
    with admin() as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


def psql_file(url: str, path: Path) -> None:
    subprocess.run(
        ["psql", url, "-qX", "-v", "ON_ERROR_STOP=1", "-f", str(path)],
        check=True,
        capture_output=True,
    )


def require_server() -> None:
    """No DATABASE_URL: stop (libpq's defaults would reach the machine's own PostgreSQL, never ours to use)."""
    if not SERVER_URL:
        pytest.exit("DATABASE_URL is not set: run the tests with `make test`", returncode=2)


@pytest.fixture(scope="session")
def pgq_template() -> Iterator[str]:
    require_server()
    name = create_database()
    psql_file(url_for(name), ROOT / "sql" / "install.sql")
    yield name
    drop_database(name)


@pytest.fixture
def db_url(pgq_template: str) -> Iterator[str]:
    name = create_database(template=pgq_template)
    yield url_for(name)
    drop_database(name)


@pytest.fixture
def conn(db_url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(db_url, autocommit=True) as connection:
        yield connection


@pytest.fixture
def new_database() -> Iterator[Callable[[], str]]:
    require_server()
    made: list[str] = []

    def make() -> str:
        made.append(create_database())
        return url_for(made[-1])

    yield make
    for name in made:
        drop_database(name)


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The sdist and wheel, built once per session as a release would (tests/packaging/packaging_support.py)."""
    sys.path.insert(0, str(ROOT / "tests" / "packaging"))
    from packaging_support import build_dist

    return build_dist(tmp_path_factory.mktemp("dist"))
# -- a hostile login role: no pgq rights at all ---------------------------------------------------

class Hostile:
    """A LOGIN role with no pgq rights (only what PUBLIC has: connect, advisory
    locks, LISTEN/NOTIFY, pg_locks, pg_stat_activity), and its sessions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sessions: list[psycopg.Connection[Any]] = []

    def connect(self, url: str, autocommit: bool = True) -> psycopg.Connection[Any]:
        conn = psycopg.connect(make_conninfo(url, user=self.name), autocommit=autocommit)
        self.sessions.append(conn)
        return conn

    def hold_pgq_advisory_locks(self, url: str, keys: int = 2000) -> psycopg.Connection[Any]:
        """0002's reaper turn (0), migration lock (-1) and the session keys 1..keys, held by one session."""
        conn = self.connect(url)
        conn.execute("select count(pg_advisory_lock(1885827328, k)) from generate_series(-1, %s) k", (keys,))
        return conn

    def fill_notify_queue(self, url: str, megabytes: int = 4) -> psycopg.Connection[Any]:
        """LISTEN, then sit idle in a transaction while megabytes of notifications are sent: the
        cluster-wide queue cannot move past this session, so it fills. Returns the idle session."""
        idle = self.connect(url, autocommit=False)
        idle.execute("listen hostile")
        idle.commit()
        idle.execute("select 1")  # idle in transaction from here on
        flood = self.connect(url)
        for _ in range(megabytes):
            flood.execute("select count(pg_notify('hostile', repeat('x', 7900) || g)) from generate_series(1, 128) g")
        return idle

    def close(self) -> None:
        for conn in self.sessions:
            conn.close()


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    role = Hostile(f"pgq_hostile_{uuid.uuid4().hex[:8]}")
    with admin() as conn:
        conn.execute(f'create role "{role.name}" login')
    yield role
    role.close()
    with admin() as conn:
        for _ in range(100):
            busy = conn.execute("select count(*) from pg_stat_activity where usename = %s", (role.name,)).fetchone()
            if not busy[0]:
                break
            time.sleep(0.05)
        conn.execute(f'drop role if exists "{role.name}"')
