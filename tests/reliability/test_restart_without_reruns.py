"""Restart without re-runs (design.md#restarts-without-re-runs): a PostgreSQL restart under load re-runs nothing.

A cluster of the test's own (.pg-restart-test, port PGQ_RESTART_PG_PORT,
default 54362) is restarted with ``pg_ctl restart -m fast`` and then
``-m immediate`` while 8 worker processes (ledger_worker.py: real
pgq_client.Worker processes) run jobs of 100-400 ms and a producer enqueues
at a steady rate. The independent books (books.py: the job body writes its
own start/done rows on its own connection, retrying while the server is away;
a trigger records every terminal write) must show every committed enqueue
finished once: 0 lost, 0 duplicate executions (no worker died), 0 duplicate
terminal writes, and every worker running jobs again within 10 s of each
restart.

Until revision 0008 every claim whose session vanished with the server was
reaped as crashed and ran a second time while its first run was still going.
To measure that, run this file with the old SQL and the old client:
``PGQ_SOAK_REVISION=0008 PYTHONPATH=<a copy of the old python_client>``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from . import books
from .figures import record
from .soak.cluster import Cluster
from .soak.load import Producer, wait_drained
from .soak.pg_crash import RESUME_PROMISE, resumed
from .workers import Fleet

pytestmark = pytest.mark.slow

WORKERS = 8
JOBS = 1200
RATE = 50.0  # jobs/s: 24 s of load; with 100-400 ms jobs ~12 run at any moment
RESTARTS = [(6.0, "fast"), (15.0, "immediate")]  # seconds after the load starts
PORT = int(os.environ.get("PGQ_RESTART_PG_PORT", "54362"))


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    own = Cluster("restart-test", PORT)
    own.start()
    try:
        yield own
    finally:
        try:
            own.drop_databases()
        finally:
            own.stop()


def test_restart_under_load_re_runs_no_job_and_every_worker_resumes(cluster: Cluster, tmp_path: Path) -> None:
    url = cluster.new_database("restart")
    with psycopg.connect(url, autocommit=True) as conn:
        books.install(conn)
        conn.execute("select q.configure('restart', max_crashes => 20)")
    fleet = Fleet(url, tmp_path / "workers")
    try:
        workers = [fleet.start(f"restart-{i}", "restart", concurrency=3, batch_size=4) for i in range(WORKERS)]
        fleet.wait_ready(workers)
        producer = Producer(url, "restart", JOBS, RATE, ms=(100, 400))
        load_started = time.monotonic()
        producer.start()
        restarts = []
        for at, mode in RESTARTS:
            time.sleep(max(0.0, load_started + at - time.monotonic()))
            with psycopg.connect(url, autocommit=True) as conn:
                running = conn.execute("select count(*) from q_data.job where state = 'r'").fetchone()[0]
            down = cluster.restart(mode)
            with psycopg.connect(url, autocommit=True) as conn:
                back_db = conn.execute("select clock_timestamp()").fetchone()[0]
            resume = resumed(url, [w.pid for w in workers], back_db, 3 * RESUME_PROMISE)
            restarts.append({"mode": mode, "running_at_restart": running, "restart_s": round(down, 2),
                             "resume_s": round(resume, 2)})
            assert all(w.alive() for w in workers), "a worker process exited when the server went away"
        producer.join(120)
        assert producer.error is None, f"producer failed: {producer.error!r}"
        with psycopg.connect(url, autocommit=True) as conn:
            # Claims whose answer the restart swallowed (the worker never saw them) wait out the
            # restart grace (30 s) before the reaper hands them out: they ran nowhere, so no re-run.
            wait_drained(conn, 150)
            fleet.stop_all()
            result = books.audit(conn, producer.committed)
        events = fleet.event_counts()
        figures = {**result.figures(), "restarts": restarts, "adopted_events": events.get("jobs_adopted", 0),
                   "lost_events": events.get("job_lost", 0), "reaped_events": events.get("jobs_reaped", 0)}
        print(figures)
        record("3", "restart -m fast, then -m immediate (make test)", jobs_enqueued_ok=len(producer.committed),
               workers=WORKERS, restarts=len(restarts), lost=result.lost,
               duplicate_executions=result.duplicate_executions,
               duplicate_terminal_writes=result.duplicate_terminal_writes,
               worst_resume_s=max(r["resume_s"] for r in restarts), adopted_events=figures["adopted_events"])
        assert not fleet.killed_pids()
        assert result.lost == 0 and result.unfinished == 0, figures
        assert result.completed_without_execution == 0, figures
        assert result.duplicate_terminal_writes == 0, figures
        assert result.duplicate_executions == 0, f"jobs ran twice although every worker survived: {figures}"
        assert figures["adopted_events"] > 0, f"workers adopted their claims after the restarts: {figures}"
        assert max(r["resume_s"] for r in restarts) < RESUME_PROMISE, figures
    finally:
        fleet.close()
