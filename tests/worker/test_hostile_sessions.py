"""The first review's lock and NOTIFY attacks
(design.md#locks-no-other-role-can-take, design.md#notifications-are-only-hints)
with real `pgq worker` processes: a login role with no pgq rights holds 0002's
advisory locks (the reaper's turn, the migration lock, the next session keys),
LISTENs and idles in a transaction while it fills the NOTIFY queue, and reads
pg_locks. Workers still drain every job, a SIGKILLed worker's job is back and
runs elsewhere within 2 s, enqueues never fail, and `alembic upgrade head` does
not wait for the squatter."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pgq_client import enqueue
from psycopg.conninfo import conninfo_to_dict
from worker_support import prepare, ready, wait_for

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC = Path(sys.executable).parent / "alembic"
NOTIFY_LIMIT = "0.0001"  # a few megabytes stand in for the 4 GB of the default 0.5


def runs(url: str, phase: str) -> list[tuple[int, int, int]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "select job_id, pid, attempt from test_runs where phase = %s order by at", (phase,)
        ).fetchall()


@pytest.mark.serial  # fills the server-wide NOTIFY queue; a 2 s bound
def test_workers_drain_and_reclaim_while_a_role_without_pgq_rights_squats_and_fills_notify(
    db_url: str, spawn: Callable[..., Any], hostile: Any, new_database: Callable[[], str]
) -> None:
    prepare(db_url)
    dbname = conninfo_to_dict(db_url)["dbname"]
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f'alter database "{dbname}" set pgq.notify_queue_limit = {NOTIFY_LIMIT}')

    squatter = hostile.hold_pgq_advisory_locks(db_url)
    idle = hostile.fill_notify_queue(db_url, megabytes=4)
    seen = squatter.execute(
        "select count(*) from pg_locks where locktype = 'advisory' and classid = 1885827328 and granted"
    ).fetchone()[0]
    assert seen >= 2000, "the squatter holds (and can see) the reaper turn, migration lock and next keys"
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert conn.execute("select pg_notification_queue_usage()").fetchone()[0] >= float(NOTIFY_LIMIT)

    workers = [spawn(db_url, "-q", "w", "--concurrency", "4") for _ in range(2)]
    ready(db_url, 2)
    with psycopg.connect(db_url, autocommit=True) as conn:
        ids = [enqueue(conn, "w", {"n": n}) for n in range(20)]
    wait_for(lambda: len(runs(db_url, "end")) >= 20, 20, "20 jobs drained by polling workers")
    assert sorted(r[0] for r in runs(db_url, "end")) == sorted(ids)

    with psycopg.connect(db_url, autocommit=True) as conn:
        job = enqueue(conn, "w", {"sleep_first": 60})
    started = wait_for(lambda: [r for r in runs(db_url, "start") if r[0] == job], 10, "the long job to start")
    victim = next(w for w in workers if w.pid == started[0][1])
    time.sleep(0.3)
    victim.signal(signal.SIGKILL)
    killed = time.monotonic()
    wait_for(lambda: [r for r in runs(db_url, "end") if r[0] == job], 10, "the killed worker's job to run elsewhere")
    elapsed = time.monotonic() - killed
    print(f"killed worker's job finished in another worker {elapsed * 1000:.0f} ms after SIGKILL")
    assert elapsed < 2.0
    (_, pid, attempt), = [r for r in runs(db_url, "end") if r[0] == job]
    assert pid != victim.pid and attempt == 2

    # The migration lock is no longer the advisory lock (1885827328, -1) either.
    fresh = new_database()
    hostile.hold_pgq_advisory_locks(fresh, keys=10)
    run = subprocess.run([str(ALEMBIC), "-c", str(ROOT / "alembic.ini"), "upgrade", "head"],
                         env={**os.environ, "DATABASE_URL": fresh}, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert squatter.execute("select 1").fetchone() == (1,) and idle.info.transaction_status.name == "INTRANS"
