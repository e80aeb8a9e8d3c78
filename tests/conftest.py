"""Fixtures: real databases on the DATABASE_URL server (the embedded cluster by default).

* ``pgq_template`` (session): a database with sql/install.sql applied, used as
  a template so each test gets a fresh copy cheaply.
* ``db_url``: a fresh database for one test, dropped afterwards.
* ``conn``: an autocommit psycopg connection to it (closed afterwards).
* ``new_database``: make more empty databases (for migration tests).
* ``dist`` (session): the sdist and wheel built from python_client/ (tests/packaging/).

Under pytest-xdist (``make test`` runs ``pytest -n``), the controller prepares what the workers must
not do at the same moment, before it starts them (``pytest_sessionstart``): it installs pgq once in a
scratch database, so that pgq's cluster-wide roles and their memberships exist before several workers
install pgq in their databases at once, and it builds ``dist`` once (the build copies alembic/ into
python_client/pgq_client/ for a few seconds, where a concurrent migration would find it); the workers'
``dist`` is that build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
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
    from packaging_support import Dist, build_dist

    shared = _shared()
    if shared is not None:  # built by the xdist controller (pytest_sessionstart)
        built = shared / "dist"
        if (built / "FAILED").exists():
            pytest.fail((built / "FAILED").read_text(), pytrace=False)
        (sdist,), (wheel,) = built.glob("*.tar.gz"), built.glob("*.whl")
        return Dist(sdist=sdist, wheel=wheel)
    return build_dist(tmp_path_factory.mktemp("dist"))


# -- pytest -n: the controller's preparation, and xdist_group (see the module's docstring) ------------------

SHARED = "PGQ_TEST_XDIST_SHARED"  # a folder the controller makes for its workers (they inherit the variable)


def _xdist_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))


def _shared() -> Path | None:
    """The controller's folder, in an xdist worker (None outside one)."""
    folder = os.environ.get(SHARED) if os.environ.get("PYTEST_XDIST_WORKER") else None
    return Path(folder) if folder else None


def pytest_sessionstart(session: pytest.Session) -> None:
    if not _xdist_controller(session.config):
        return
    if SERVER_URL:
        scratch = create_database()
        try:
            psql_file(url_for(scratch), ROOT / "sql" / "install.sql")
        finally:
            drop_database(scratch)
    sys.path.insert(0, str(ROOT / "tests" / "packaging"))
    from packaging_support import build_dist

    shared = Path(tempfile.mkdtemp(prefix="pgq-test-xdist-"))
    (shared / "dist").mkdir()
    try:
        build_dist(shared / "dist")
    except AssertionError as failed:  # reported by every test that uses dist, as without -n
        (shared / "dist" / "FAILED").write_text(f"building the sdist and wheel failed: {failed}")
    os.environ[SHARED] = str(shared)  # the workers, started after this hook (xdist's is trylast), inherit it


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _xdist_controller(session.config) and os.environ.get(SHARED):
        shutil.rmtree(os.environ.pop(SHARED), ignore_errors=True)


# pytest-xdist 3.8's --dist loadgroup marks a test's group by appending "@group" to item._nodeid, which pytest
# 9.2 no longer reads (nodeid comes from item._id): every test became a group of its own, so two tests of
# one xdist_group ran at once. Here each worker writes the groups of its items (by the pytest.mark.xdist_group
# marks) into the controller's folder after collecting, before it reports its collection; the controller's
# scheduler, made when collection is complete, reads them: a group is one unit of work, on one worker.


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shared = _shared()
    if shared is None or not getattr(config.option, "loadgroup", False):  # xdist sets loadgroup in its workers
        return
    groups = {item.nodeid: str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
              for item in items if (mark := item.get_closest_marker("xdist_group"))}
    path = shared / f"groups-{os.environ['PYTEST_XDIST_WORKER']}.json"
    path.with_suffix(".tmp").write_text(json.dumps(groups))
    path.with_suffix(".tmp").rename(path)


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # without pytest-xdist, pytest runs one test at a time and groups mean nothing
    pass
else:

    class _GroupScheduling(LoadScopeScheduling):
        """--dist loadgroup: each xdist_group one unit of work; every other test a unit of its own."""

        _groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:
                self._groups = {}
                for path in Path(os.environ[SHARED]).glob("groups-*.json"):
                    self._groups.update(json.loads(path.read_text()))
            if nodeid in self._groups:
                return "@group " + self._groups[nodeid]
            return nodeid.rsplit("@", 1)[-1] if "@" in nodeid else nodeid  # xdist's own suffix, once it works

    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") == "loadgroup" and os.environ.get(SHARED):
            return _GroupScheduling(config, log)
        return None


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
