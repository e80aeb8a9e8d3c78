"""Helpers for testing code that uses pgq: a migrated database, and queued jobs run inline.

In a pytest suite (``conftest.py``)::

    pytest_plugins = ["pgq_client.testing"]

    def test_signup_sends_one_email(pgq_conn):            # a fresh migrated database per test
        signup(pgq_conn, "ada@example.com")                # your code enqueues, e.g. send_email.enqueue(...)
        runs = run_jobs(pgq_conn, app, "emails")           # claim, handler, complete/fail: the real SQL
        assert [r.outcome for r in runs] == ["completed"]

The databases are made on the server of ``PGQ_TEST_DATABASE_URL`` (a URL
for tests only: its role needs CREATEDB; a new database per test, dropped
afterwards), else of ``DATABASE_URL``, else on a temporary PostgreSQL cluster
of the test run's own, made with the machine's ``initdb``/``pg_ctl`` (run as
the ``postgres`` user when the tests run as root) on a Unix socket in a
temporary folder, and removed at the end. Either way pgq is installed with
its Alembic migrations, as users install it. A role that may not create
databases gets one line naming the missing privilege and the fix
(:class:`TestDatabaseError`), not a traceback.

:func:`run_jobs` needs no worker, threads or sleeps: it claims the waiting
jobs of the queues, runs each handler in the calling thread exactly as a
worker would (payload model, ``JobContext``, cancellation exceptions), and
records the outcome with ``q.complete``/``q.fail``; it returns what happened
to each job. Jobs a handler enqueues are run too, until the queues are
empty (or ``limit`` runs). Retries land in the future (the queue's backoff),
so a failing job runs once per call, unless ``include_scheduled=True``: then
a failure's retry is due at once (the attempt counts, the backoff is skipped),
so a job runs until it completes or is dead, and jobs scheduled for later
(``run_at``) run now: retry → dead is testable without sleeps.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from . import _client, aio
from .app import App, Task
from .records import FailStatus

if TYPE_CHECKING:
    from .worker._lanes import Lane

__all__ = [
    "TEST_URL_VARIABLE",
    "JobRun",
    "RunOutcome",
    "TemporaryCluster",
    "TestDatabaseError",
    "migrated_database",
    "run_jobs",
    "run_jobs_async",
]


class RunOutcome(str, Enum):
    COMPLETED = "completed"
    RETRY = "retry"  # failed; scheduled again (the queue's backoff)
    DEAD = "dead"  # failed for the last time, or the payload did not validate
    LOST = "lost"  # the claim was no longer current when the outcome was recorded
    DROPPED = "dropped"  # the handler raised JobCancelled/JobLost: nothing recorded

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class JobRun:
    """One job run inline by :func:`run_jobs`."""

    id: int
    queue: str
    attempt: int
    payload: Any  # as the handler got it (validated by the payload model, if any)
    outcome: RunOutcome
    error: str | None  # "ExceptionType: message" for failures
    result: Any = None  # what the handler returned (stored as the job's result, revision 0009), decoded


Target = Any  # a Worker/AsyncWorker, an App, a Task, or a handler function


def _lanes(target: Target, queues: str | Sequence[str] | None) -> list[Lane]:
    from .worker._lanes import Lane

    names = [queues] if isinstance(queues, str) else list(queues or [])
    if isinstance(target, App):
        return target.lanes(names or None)
    if isinstance(target, Task):
        return [target.lane(0)]
    lanes = getattr(target, "lanes", None)
    if lanes is not None and not callable(lanes):  # a Worker or AsyncWorker
        return [lane for lane in lanes if not names or set(lane.queues) & set(names)]
    if not callable(target):
        raise TypeError(f"run_jobs needs a Worker, an App, a Task or a handler function, got {target!r}")
    if not names:
        raise ValueError("run_jobs(conn, handler, queue): a plain handler needs the queue(s) to run")
    return [Lane.make(0, target, tuple(names), concurrency=1)]


def run_jobs(conn: psycopg.Connection[Any], target: Target, queues: str | Sequence[str] | None = None, *,
             limit: int = 1000, include_scheduled: bool = False) -> list[JobRun]:
    """Run the waiting jobs of the target's queues (or those named) inline; returns what happened to each.

    conn must be autocommit (claims commit at once, as in a worker). Handlers
    that call ``job.connection()`` get conn itself. include_scheduled: retries
    are due at once (the attempt counts; no backoff) and jobs scheduled for
    later that never ran are made due now (``q.cancel`` + ``q.retry``: same id;
    pgq_admin, which a test database's owner has), so failing jobs run until
    dead in one call.
    """
    from .worker._claimed import ClaimedJob
    from .worker._worker import run_job

    if not conn.autocommit:
        raise ValueError("run_jobs needs an autocommit connection (claims commit at once)")
    lanes = _lanes(target, queues)
    retry_in = timedelta(0) if include_scheduled else None
    runs: list[JobRun] = []
    progress = True
    while progress and len(runs) < limit:
        progress = False
        for lane in lanes:
            for queue in lane.queues:
                if include_scheduled:
                    for info in _client.jobs(conn, queue=queue, state="scheduled", limit=10000):
                        if info.attempt == 0 and _client.cancel(conn, info.id):
                            _client.retry(conn, info.id)
                for job in _client.claim(conn, queue, 1, lease=lane.lease, owner=0):
                    ctx = ClaimedJob(job, 300.0, 0, lane.index, lambda: contextlib.nullcontext(conn))
                    result = run_job(lane, ctx)
                    runs.append(_record(result, _finish_sync(conn, result, retry_in)))
                    progress = True
    return runs


async def run_jobs_async(conn: psycopg.AsyncConnection[Any], target: Target,
                         queues: str | Sequence[str] | None = None, *, limit: int = 1000,
                         include_scheduled: bool = False) -> list[JobRun]:
    """:func:`run_jobs` for async tests: an AsyncConnection, coroutine handlers awaited in the running loop."""
    from .worker._async_worker import run_job
    from .worker._claimed import ClaimedJob

    if not conn.autocommit:
        raise ValueError("run_jobs_async needs an autocommit connection (claims commit at once)")
    lanes = _lanes(target, queues)
    retry_in = timedelta(0) if include_scheduled else None
    runs: list[JobRun] = []
    progress = True
    while progress and len(runs) < limit:
        progress = False
        for lane in lanes:
            for queue in lane.queues:
                if include_scheduled:
                    for info in await aio.jobs(conn, queue=queue, state="scheduled", limit=10000):
                        if info.attempt == 0 and await aio.cancel(conn, info.id):
                            await aio.retry(conn, info.id)
                for job in await aio.claim(conn, queue, 1, lease=lane.lease, owner=0):
                    ctx = ClaimedJob(job, 300.0, 0, lane.index, lambda: _AsyncNull(conn))
                    result = await run_job(lane, ctx)
                    runs.append(_record(result, await _finish_async(conn, result, retry_in)))
                    progress = True
    return runs


class _AsyncNull:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def __aenter__(self) -> Any:
        return self.conn

    async def __aexit__(self, *exc: object) -> None:
        return None


def _finish_sync(conn: psycopg.Connection[Any], result: Any, retry_in: timedelta | None = None) -> RunOutcome:
    from .worker._ledger import ResultKind

    job = result.ctx.job
    if result.kind is ResultKind.COMPLETE:
        done = _client.complete(conn, job.id, job.token, _value(result))
        return RunOutcome.COMPLETED if done else RunOutcome.LOST
    if result.kind is ResultKind.DROP:
        return RunOutcome.DROPPED
    status = _client.fail(conn, job.id, job.token, result.error, retry_in=retry_in,
                          retryable=result.kind is ResultKind.FAIL)
    return _outcome(status)


async def _finish_async(conn: psycopg.AsyncConnection[Any], result: Any,
                        retry_in: timedelta | None = None) -> RunOutcome:
    from .worker._ledger import ResultKind

    job = result.ctx.job
    if result.kind is ResultKind.COMPLETE:
        done = await aio.complete(conn, job.id, job.token, _value(result))
        return RunOutcome.COMPLETED if done else RunOutcome.LOST
    if result.kind is ResultKind.DROP:
        return RunOutcome.DROPPED
    status = await aio.fail(conn, job.id, job.token, result.error, retry_in=retry_in,
                            retryable=result.kind is ResultKind.FAIL)
    return _outcome(status)


def _outcome(status: FailStatus) -> RunOutcome:
    return {FailStatus.RETRY: RunOutcome.RETRY, FailStatus.DEAD: RunOutcome.DEAD}.get(status, RunOutcome.LOST)


def _value(result: Any) -> Any:
    """The handler's return value: the worker keeps it as JSON text (None: no result)."""
    return None if result.value is None else json.loads(result.value)


def _record(result: Any, outcome: RunOutcome) -> JobRun:
    ctx = result.ctx
    return JobRun(ctx.id, ctx.queue, ctx.attempt, ctx.payload, outcome, result.summary or None, _value(result))


# -- databases -----------------------------------------------------------------------------------


def _as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: [int(x) for x in
                      p.parent.name.split(".") if x.isdigit()])
    if not versions:
        raise RuntimeError("no PostgreSQL server binaries (initdb, pg_ctl): install postgresql, or set DATABASE_URL")
    return versions[-1]


class TemporaryCluster:
    """A throwaway PostgreSQL cluster on a Unix socket in a temporary folder (scripts/embedded-pg's logic).

    PostgreSQL refuses to run as root, so as root the server runs as the
    ``postgres`` user (the folder is handed to it). :meth:`stop` removes it all.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="pgq-test-", dir="/var/tmp" if os.geteuid() == 0 else None))
        self.data = self.root / "data"
        self.socket = self.root
        self.port = 5432
        self.bindir = _bindir()

    def _run(self, *args: str) -> None:
        done = subprocess.run([*_as_postgres(), *args], capture_output=True, text=True, cwd="/")
        if done.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> TemporaryCluster:
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C.UTF-8")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(f"listen_addresses = ''\nunix_socket_directories = '{self.socket}'\nport = {self.port}\n"
                       "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n"
                       "autovacuum_naptime = 5s\n")
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "server.log"), "-w",
                  "-t", "60", "start")
        return self

    @property
    def url(self) -> str:
        return make_conninfo(host=str(self.socket), port=str(self.port), user="postgres", dbname="postgres")

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


# A URL for tests only: the server (and a role with CREATEDB) the throwaway databases are made on.
TEST_URL_VARIABLE = "PGQ_TEST_DATABASE_URL"


class TestDatabaseError(RuntimeError):
    """A test database could not be made: the message is one line naming the cause and the fix."""

    __test__ = False  # not a test class, whatever pytest thinks of the name


def _server_variable() -> str | None:
    """Which variable names the test server: PGQ_TEST_DATABASE_URL, else DATABASE_URL, else none (a temporary one)."""
    for name in (TEST_URL_VARIABLE, "DATABASE_URL"):
        if os.environ.get(name, ""):
            return name
    return None


@contextlib.contextmanager
def server() -> Iterator[str]:
    """A server URL: ``PGQ_TEST_DATABASE_URL``'s, else ``DATABASE_URL``'s, else a :class:`TemporaryCluster`'s."""
    variable = _server_variable()
    if variable is not None:
        yield os.environ[variable]
        return
    cluster = TemporaryCluster().start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


def _on(url: str, dbname: str) -> str:
    return make_conninfo(url, dbname=dbname)


def create_database(server_url: str, *, template: str | None = None, migrate: bool = True) -> str:
    """A new database on the server (pgq migrated into it unless copied from a template); returns its URL."""
    from .migrations import upgrade

    name = f"pgq_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(_on(server_url, "postgres"), autocommit=True) as conn:
        try:
            conn.execute(f'create database "{name}"' + (f' template "{template}"' if template else ""))
        except psycopg.errors.InsufficientPrivilege as exc:
            raise TestDatabaseError(_no_createdb(conn, exc)) from None
    url = _on(server_url, name)
    if migrate and template is None:
        upgrade(url)
    return url


def _no_createdb(conn: psycopg.Connection[Any], exc: psycopg.Error) -> str:
    role = conn.info.user
    where = f"{conn.info.host}:{conn.info.port}"
    source = _server_variable() or "the URL given"
    return (f"pgq_client.testing: role {role!r} may not create databases on {where} ({source};"
            f" {exc.diag.message_primary}): run `ALTER ROLE \"{role}\" CREATEDB` as a superuser, or set"
            f" {TEST_URL_VARIABLE} to a server and role that may create databases (tests never need the"
            " app's own database), or unset it and DATABASE_URL to use a temporary PostgreSQL cluster")


def drop_database(url: str) -> None:
    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(_on(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


@contextlib.contextmanager
def migrated_database() -> Iterator[str]:
    """A fresh database with pgq installed (``alembic upgrade head``), dropped afterwards; yields its URL."""
    with server() as url:
        db = create_database(url)
        try:
            yield db
        finally:
            drop_database(db)


# -- the pytest plugin ------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # pragma: no cover - the helpers above work without pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture(scope="session")
    def pgq_server() -> Iterator[str]:
        """The server the tests use (DATABASE_URL, or a temporary cluster for the session)."""
        with server() as url:
            yield url

    @pytest.fixture(scope="session")
    def pgq_template(pgq_server: str) -> Iterator[str]:
        """A migrated database, migrated once per session and copied for each test."""
        problem = ""
        try:
            url = create_database(pgq_server)
        except TestDatabaseError as exc:
            problem = str(exc)
        if problem:  # outside the except block: the one line, without a chained traceback
            pytest.fail(problem, pytrace=False)
        yield str(conninfo_to_dict(url)["dbname"])
        drop_database(url)

    @pytest.fixture
    def pgq_database(pgq_server: str, pgq_template: str) -> Iterator[str]:
        """The URL of a fresh database with pgq installed, for one test."""
        url = create_database(pgq_server, template=pgq_template)
        yield url
        drop_database(url)

    @pytest.fixture
    def pgq_conn(pgq_database: str) -> Iterator[psycopg.Connection[Any]]:
        """An autocommit connection to :func:`pgq_database`."""
        with psycopg.connect(pgq_database, autocommit=True) as conn:
            yield conn

