"""Errors that cannot fix themselves stop a worker at start-up with one clear line and the fix;
transient ones (the server down) are waited out as before. Real `pgq worker` processes."""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from pgq_client import App, StartupError, Worker
from psycopg.conninfo import make_conninfo
from worker_support import PGQ, prepare, ready, wait_for, worker_env

# The session fixtures private_cluster (.pg-worker, port 54341, stopped and started here) and pgbouncer
# (.pg-bouncer-worker, port 54342) exist once per checkout: every test using them on one xdist worker.
pytestmark = pytest.mark.xdist_group("private_cluster")


def exits(spawn: Callable[..., Any], url: str, *args: str, timeout: float = 20) -> tuple[int, str]:
    worker = spawn(url, *args)
    code = worker.wait(timeout)
    return code, worker.output()


def one_error_line(output: str) -> str:
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    return errors[0]


def test_a_database_without_pgq_stops_the_worker_saying_run_pgq_migrate(
    new_database: Callable[[], str], spawn: Callable[..., Any]
) -> None:
    code, output = exits(spawn, new_database(), "-q", "w")
    assert code == 1
    line = one_error_line(output)
    assert "pgq is not installed" in line and "pgq migrate" in line and 'schema "q" does not exist' in line


def test_a_missing_function_stops_the_worker_naming_it(db_url: str, spawn: Callable[..., Any]) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("drop function q.reap(integer)")
    code, output = exits(spawn, db_url, "-q", "w")
    assert code == 1
    line = one_error_line(output)
    assert "missing q.reap" in line and "pgq migrate" in line


@pytest.fixture
def bare_role(db_url: str) -> Any:
    """A login role with no pgq role granted (roles are cluster-wide: a unique name, dropped afterwards)."""
    name = f"pgq_t_nogrant_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f'create role "{name}" login')
    yield name
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f'drop role if exists "{name}"')


def test_a_role_without_pgq_worker_stops_the_worker_saying_what_to_grant(
    db_url: str, bare_role: str, spawn: Callable[..., Any]
) -> None:
    code, output = exits(spawn, make_conninfo(db_url, user=bare_role), "-q", "w")
    assert code == 1
    line = one_error_line(output)
    assert f"grant pgq_worker to {bare_role}" in line and "q.claim" in line


def test_a_database_that_does_not_exist_stops_the_worker(db_url: str, spawn: Callable[..., Any]) -> None:
    code, output = exits(spawn, make_conninfo(db_url, dbname="pgq_no_such_db"), "-q", "w")
    assert code == 1
    line = one_error_line(output)
    assert 'database "pgq_no_such_db" does not exist' in line and "DATABASE_URL" in line


def test_no_database_configured_stops_the_worker_and_the_library_says_set_database_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import subprocess

    env = {k: v for k, v in worker_env("").items() if k != "DATABASE_URL" and not k.startswith("PG")}
    done = subprocess.run([PGQ, "worker", "worker_test_handlers:run", "-q", "w"], env=env, capture_output=True,
                          text=True, timeout=30, cwd=os.path.dirname(__file__))
    assert done.returncode != 0 and "DATABASE_URL" in done.stderr, done.stderr
    for var in [v for v in os.environ if v == "DATABASE_URL" or v.startswith("PG")]:
        monkeypatch.delenv(var)
    with pytest.raises(StartupError, match="set DATABASE_URL"):
        Worker(print, "w").run(install_signal_handlers=False)


def test_a_malformed_queue_name_is_refused_by_the_worker_itself(spawn: Callable[..., Any], db_url: str) -> None:
    with pytest.raises(ValueError, match="invalid queue name 'my emails'"):
        Worker(print, "my emails", database_url=db_url)
    with pytest.raises(ValueError, match="invalid queue name"):
        App().task(queue="bad/name")(print)
    code, output = exits(spawn, db_url, "-q", "my emails")
    assert code == 2
    assert "invalid queue name 'my emails'" in one_error_line(output)
    assert output.count("\n") <= 2, f"one line, not a stream of retries:\n{output}"


def test_a_worker_started_while_the_server_is_down_waits_and_starts_when_it_is_back(
    private_db: str, private_cluster: Any, spawn: Callable[..., Any]
) -> None:
    prepare(private_db)
    private_cluster.run("stop")
    worker = spawn(private_db, "-q", "w")
    time.sleep(3)
    assert worker.proc.poll() is None, f"a transient error must not stop the worker:\n{worker.output()}"
    assert "db_unavailable" in worker.output()
    private_cluster.run("start")
    ready(private_db, timeout=20)
    with psycopg.connect(private_db, autocommit=True) as conn:
        conn.execute("select q.enqueue('w', '{}')")
        wait_for(lambda: conn.execute("select count(*) from q_data.job_history").fetchone()[0] == 1, 15, "the job")
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0


def test_transaction_pooling_without_pgbouncer_mode_is_refused_with_the_reason(
    db_url: str, pgbouncer: Callable[[str], str], spawn: Callable[..., Any]
) -> None:
    prepare(db_url)
    code, output = exits(spawn, pgbouncer(db_url), "-q", "w")
    assert code == 1
    line = one_error_line(output)
    assert "PgBouncer in transaction mode" in line and "--pgbouncer" in line and "lease" in line
    with pytest.raises(StartupError, match="pgbouncer=True"):
        Worker(print, "w", database_url=pgbouncer(db_url)).run(install_signal_handlers=False)
