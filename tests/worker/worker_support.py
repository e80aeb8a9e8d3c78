"""Helpers shared by the worker tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PGQ = str(Path(sys.executable).with_name("pgq"))
PRIVATE_PORT = 54341
BOUNCER_PORT = 54342

DONE_TABLE = """
create table if not exists test_runs (
  job_id bigint not null,
  n integer,
  pid integer not null,
  attempt integer not null,
  phase text not null,
  at timestamptz not null default clock_timestamp()
)
"""


def worker_env(url: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DATABASE_URL"] = url
    env["PYTHONPATH"] = str(HERE) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def prepare(url: str, queue: str = "w", **settings: Any) -> None:
    """The run log table the test handlers write to, and the queue (keep completed jobs for accounting)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(DONE_TABLE)
        options = {"keep_completed": True, **settings}
        names = ", ".join(f"{k} => %({k})s" for k in options)
        conn.execute(f"select q.configure(%(queue)s, {names})", {"queue": queue, **options})


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, step: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


def scalar(url: str, query: str, params: tuple[Any, ...] = ()) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, params).fetchone()[0]


def listener_pids(url: str) -> list[int]:
    """Backends of worker listeners connected to this test's database."""
    dbname = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "select pid from pg_stat_activity where datname = %s and application_name like 'pgq-listener:%%'",
            (dbname,),
        ).fetchall()
    return [r[0] for r in rows]


def ready(url: str, count: int = 1, timeout: float = 15.0) -> None:
    """Wait until `count` workers hold their listener connection (they claim only after that)."""
    wait_for(lambda: len(listener_pids(url)) >= count, timeout, f"{count} worker listener(s)")


def as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def private_dir(name: str) -> Path:
    """ROOT/.pg-<name>, or a folder under /var/tmp when the postgres user cannot enter the checkout."""
    path = ROOT / f".pg-{name}"
    if os.geteuid() == 0 and subprocess.run([*as_postgres(), "test", "-x", str(ROOT)]).returncode != 0:
        path = Path("/var/tmp") / f"pgq-{name}-{hashlib.md5(str(ROOT).encode()).hexdigest()[:12]}"
    return path


# Jobs as q.jobs reports them, without the payload column (a payload Python cannot decode must not stop
# the test from reading the others). The one place these tests name what they read of a job.
JOB_COLUMNS = "select id, state, attempt, crashes, errors from q.jobs(queue => %s, max_rows => 10000)"


def job_rows(url: str, queue: str = "w") -> dict[int, dict[str, Any]]:
    """id -> {state, attempt, crashes, errors} of every job of a queue, live and finished."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(JOB_COLUMNS, (queue,)).fetchall()
    return {r[0]: {"state": r[1], "attempt": r[2], "crashes": r[3], "errors": r[4] or []} for r in rows}


def json_events(output: str) -> list[dict[str, Any]]:
    """The JSON log records of a ``pgq worker --log-json`` process's output (other lines skipped)."""
    import json

    records = []
    for line in output.splitlines():
        if line.startswith("{"):
            try:
                records.append(json.loads(line))
            except ValueError:
                pass
    return records
