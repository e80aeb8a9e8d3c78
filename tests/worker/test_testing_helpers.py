"""pgq_client.testing: queued jobs run inline through the real SQL, and a migrated database for users' tests."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pgq_client
import psycopg
import pytest
from pgq_client import App, JobContext, Worker, enqueue
from pgq_client.testing import RunOutcome, run_jobs, run_jobs_async
from pydantic import BaseModel
from worker_support import ROOT, scalar


class Email(BaseModel):
    to: str


def test_run_jobs_runs_a_worker_handler_and_records_complete_and_fail(conn: psycopg.Connection[Any]) -> None:
    sent: list[str] = []

    def handler(payload: dict[str, Any]) -> None:
        if payload.get("boom"):
            raise ValueError("no such mailbox\nsecond line of detail")
        sent.append(payload["to"])

    ok = enqueue(conn, "emails", {"to": "ada@example.com"})
    bad = enqueue(conn, "emails", {"to": "x", "boom": True})
    runs = run_jobs(conn, Worker(handler, "emails", database_url="dbname=unused"))
    assert [(r.id, r.outcome) for r in runs] == [(ok, RunOutcome.COMPLETED), (bad, RunOutcome.RETRY)]
    assert runs[1].error == "ValueError: no such mailbox"
    assert sent == ["ada@example.com"]
    assert scalar(conn.info.dsn, "select count(*) from q_data.job where state = 'w'") == 0
    assert scalar(conn.info.dsn, "select state from q_data.job where id = %s", (bad,)) == "s", "retry after the backoff"
    assert run_jobs(conn, handler, "emails") == [], "the retry is in the future: nothing waits"


def test_run_jobs_runs_an_apps_tasks_with_their_payload_models_and_jobs_they_enqueue(
    conn: psycopg.Connection[Any],
) -> None:
    app = App()
    outbox: list[Email] = []

    @app.task(queue="signup")
    def signup(payload: dict[str, Any], job: JobContext) -> None:
        with job.connection() as c:
            send_email.enqueue(c, Email(to=payload["email"]))

    @app.task(queue="emails", payload=Email, max_attempts=1)
    def send_email(email: Email) -> None:
        outbox.append(email)

    with psycopg.connect(conn.info.dsn) as tx, tx.transaction():  # the caller's transaction
        signup.enqueue(tx, {"email": "ada@example.com"})
    send_email.enqueue(conn, {"not": "an email"})  # type: ignore[arg-type]
    runs = run_jobs(conn, app)
    assert sorted((r.queue, r.outcome.value) for r in runs) == [
        ("emails", "completed"), ("emails", "dead"), ("signup", "completed")]
    assert outbox == [Email(to="ada@example.com")], "the email the signup enqueued was sent once"
    dead = next(r for r in runs if r.outcome is RunOutcome.DEAD)
    assert dead.error is not None and dead.error.startswith("ValidationError: 1 validation error for Email")
    assert scalar(conn.info.dsn, "select count(*) from q_data.job") == 0


def test_run_jobs_async_awaits_coroutine_handlers(db_url: str) -> None:
    app = App()
    seen: list[int] = []

    @app.task(queue="async-q")
    async def work(payload: dict[str, Any]) -> None:
        await asyncio.sleep(0)
        seen.append(payload["n"])

    async def scenario() -> list[Any]:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as aconn:
            await work.enqueue_many_async(aconn, [{"n": 1}, {"n": 2}])
            return await run_jobs_async(aconn, app)

    runs = asyncio.run(scenario())
    assert [r.outcome for r in runs] == [RunOutcome.COMPLETED, RunOutcome.COMPLETED]
    assert seen == [1, 2]


def test_run_jobs_refuses_a_connection_in_a_transaction(conn: psycopg.Connection[Any]) -> None:
    with psycopg.connect(conn.info.dsn) as tx, pytest.raises(ValueError, match="autocommit"):
        run_jobs(tx, print, "q")


def test_the_pytest_plugin_gives_each_test_a_migrated_database(tmp_path: Path) -> None:
    """A user's suite, run by pytest in a subprocess: two tests, each with its own empty migrated database."""
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["pgq_client.testing"]\n')
    (tmp_path / "test_users_code.py").write_text(textwrap.dedent("""
        import pgq_client
        from pgq_client.testing import run_jobs

        def test_one(pgq_conn):
            pgq_client.enqueue(pgq_conn, "mail", {"to": "ada"})
            runs = run_jobs(pgq_conn, lambda payload: None, "mail")
            assert [r.outcome.value for r in runs] == ["completed"]

        def test_two_starts_empty(pgq_conn):
            assert pgq_client.stats(pgq_conn) == []
    """))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_run_jobs_with_include_scheduled_runs_retries_until_dead_and_later_jobs_now_without_sleeping(
    conn: psycopg.Connection[Any],
) -> None:
    import time
    from datetime import datetime, timedelta, timezone

    app = App()

    @app.task(queue="flaky", max_attempts=3)
    def flaky(payload: dict[str, Any], job: JobContext) -> None:
        raise RuntimeError(f"attempt {job.attempt} failed")

    @app.task(queue="later")
    def later(payload: dict[str, Any]) -> None:
        return None

    conn.execute("select q.configure('flaky', backoff_base => '1 hour', backoff_max => '1 hour')")
    job = flaky.enqueue(conn, {})
    tomorrow = later.enqueue(conn, {"n": 1}, run_at=datetime.now(timezone.utc) + timedelta(days=1))
    assert [r.outcome for r in run_jobs(conn, app)] == [RunOutcome.RETRY], "by default: once, the retry is an hour off"
    job2 = flaky.enqueue(conn, {})
    started = time.monotonic()
    runs = run_jobs(conn, app, include_scheduled=True)
    assert time.monotonic() - started < 5, "no sleeping through the backoff"
    assert [(r.attempt, r.outcome) for r in runs if r.id == job2] == [
        (1, RunOutcome.RETRY), (2, RunOutcome.RETRY), (3, RunOutcome.DEAD)], runs
    assert [(r.attempt, r.outcome) for r in runs if r.id == tomorrow] == [(1, RunOutcome.COMPLETED)], runs
    assert len(runs) == 4 and runs[-1].error == "RuntimeError: attempt 3 failed"
    states = dict(conn.execute("select id, state from q.jobs(queue => 'flaky')").fetchall())
    assert states == {job: "scheduled", job2: "dead"}, "a retry from before (attempt 1) keeps its backoff"


def test_run_jobs_async_with_include_scheduled_reaches_dead(db_url: str) -> None:
    app = App()

    @app.task(queue="flaky", max_attempts=2)
    async def flaky(payload: dict[str, Any]) -> None:
        raise ValueError("nope")

    async def main() -> list[Any]:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as aconn:
            await flaky.enqueue_async(aconn, {})
            return await run_jobs_async(aconn, app, include_scheduled=True)

    assert [r.outcome for r in asyncio.run(main())] == [RunOutcome.RETRY, RunOutcome.DEAD]


def test_the_plugin_makes_databases_on_the_test_url_not_the_apps_own(tmp_path: Path) -> None:
    """PGQ_TEST_DATABASE_URL wins: DATABASE_URL (the app's) names a server that does not exist."""
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["pgq_client.testing"]\n')
    (tmp_path / "test_users_code.py").write_text("def test_one(pgq_conn):\n    pgq_conn.execute('select q.stats()')\n")
    env = {**os.environ, "PGQ_TEST_DATABASE_URL": os.environ["DATABASE_URL"],
           "DATABASE_URL": "host=/nonexistent/app-socket dbname=app_production"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_a_role_without_createdb_gets_one_line_naming_the_privilege_and_the_fix(
        tmp_path: Path, hostile: Any) -> None:
    """A real LOGIN role without CREATEDB: each test fails with the one line, never a traceback."""
    from psycopg.conninfo import make_conninfo

    (tmp_path / "conftest.py").write_text('pytest_plugins = ["pgq_client.testing"]\n')
    (tmp_path / "test_users_code.py").write_text(
        "def test_one(pgq_conn):\n    pass\n\ndef test_two(pgq_conn):\n    pass\n")
    env = {**os.environ, "PGQ_TEST_DATABASE_URL": make_conninfo(os.environ["DATABASE_URL"], user=hostile.name)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    out = done.stdout + done.stderr
    assert done.returncode != 0 and "2 errors" in out, out
    line = f"role '{hostile.name}' may not create databases"
    assert line in out and f'ALTER ROLE "{hostile.name}" CREATEDB' in out and "set PGQ_TEST_DATABASE_URL" in out, out
    assert "Traceback" not in out and "psycopg.errors" not in out, out


@pytest.mark.slow
def test_migrated_database_without_database_url_starts_a_temporary_cluster() -> None:
    """No DATABASE_URL: initdb + pg_ctl in a temporary folder (as postgres when root), migrated, removed after."""
    script = textwrap.dedent("""
        import os, psycopg
        from pgq_client.testing import migrated_database
        with migrated_database() as url:
            with psycopg.connect(url, autocommit=True) as conn:
                n = conn.execute("select count(*) from pg_proc where pronamespace = 'q'::regnamespace"
                                 " and proname = 'claim'").fetchone()[0]
                host = conn.info.host
        print(n, host, os.path.exists(host))
    """)
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    count, host, exists = done.stdout.split()
    assert count == "1", "pgq is installed"
    assert host != conninfo_host(), "a cluster of its own, not the test server"
    assert exists == "False", "the temporary cluster was removed"


def conninfo_host() -> str:
    from psycopg.conninfo import conninfo_to_dict

    return str(conninfo_to_dict(os.environ["DATABASE_URL"]).get("host"))


def test_import_pgq_client_needs_psycopg_only() -> None:
    """The thin client and the App imported where psycopg_pool, typer, rich and alembic cannot be imported."""
    script = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("psycopg_pool", "typer", "rich", "alembic", "sqlalchemy", "pydantic"):
                    raise ImportError(f"blocked: {name}")
                return None
        sys.meta_path.insert(0, Block())
        import pgq_client
        from pgq_client import App, JobContext, claim, enqueue
        from pgq_client import aio
        app = App()
        @app.task(queue="emails")
        def send(payload): pass
        try:
            pgq_client.Worker
        except ImportError as exc:
            print("worker needs the pool:", exc)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "worker needs the pool: blocked: psycopg_pool" in done.stdout
    assert pgq_client.Worker is Worker


def test_run_jobs_stores_a_handlers_return_value_as_the_jobs_result(conn: psycopg.Connection[Any]) -> None:
    job_id = enqueue(conn, "sums", {"a": 2, "b": 3})
    [run] = run_jobs(conn, lambda payload: {"sum": payload["a"] + payload["b"]}, "sums")
    assert (run.outcome, run.result) == (RunOutcome.COMPLETED, {"sum": 5})
    assert pgq_client.result(conn, job_id).result == {"sum": 5}
