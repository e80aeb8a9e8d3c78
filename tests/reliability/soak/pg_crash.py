"""Suite 3, PostgreSQL crash: the chaos load (8 workers, 10,000 jobs of 5-50 ms
enqueued at a steady rate) while the server is restarted with
`pg_ctl restart -m immediate` twice and `-m fast` once. Every enqueue that
returned success exists afterwards and finishes once: no worker dies, so no job
runs twice (revision 0009: the workers adopt their claims within the reaper's
restart grace); workers resume within 10 s."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg

from .. import books
from ..workers import Fleet
from .cluster import Cluster
from .load import Producer, wait_drained

WORKERS = 8
JOBS = 10_000
RATE = 220.0
RESTARTS = [(8.0, "immediate"), (20.0, "immediate"), (32.0, "fast")]  # seconds after the load starts
RESUME_PROMISE = 10.0


def resumed(url: str, pids: list[int], since_db: Any, limit: float) -> float:
    """Seconds until every worker process has started a job after the server came back."""
    started = time.monotonic()
    while True:
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=3) as conn:
                while True:
                    waiting = conn.execute(
                        "select count(*) from unnest(%s::int[]) p(pid) where not exists ("
                        " select from rel.execution e where e.pid = p.pid and e.phase = 'start' and e.at > %s)",
                        (pids, since_db),
                    ).fetchone()[0]
                    elapsed = time.monotonic() - started
                    if waiting == 0 or elapsed > limit:
                        return elapsed
                    time.sleep(0.05)
        except psycopg.OperationalError:
            time.sleep(0.1)


def run(cluster: Cluster, logs: Path) -> dict[str, Any]:
    url = cluster.new_database("soak_crash")
    with psycopg.connect(url, autocommit=True) as conn:
        books.install(conn)
        conn.execute("select q.configure('crash', max_crashes => 20)")
    fleet = Fleet(url, logs / "crash")
    try:
        workers = [fleet.start(f"crash-{i}", "crash", concurrency=2, batch_size=5) for i in range(WORKERS)]
        fleet.wait_ready(workers)
        producer = Producer(url, "crash", JOBS, RATE)
        load_started = time.monotonic()
        producer.start()
        restarts = []
        for at, mode in RESTARTS:
            time.sleep(max(0.0, load_started + at - time.monotonic()))
            down = cluster.restart(mode)
            with psycopg.connect(url, autocommit=True) as conn:
                back_db = conn.execute("select clock_timestamp()").fetchone()[0]
            resume = resumed(url, [w.pid for w in workers], back_db, 3 * RESUME_PROMISE)
            restarts.append({"mode": mode, "restart_s": round(down, 2), "resume_s": round(resume, 2)})
            assert all(w.alive() for w in workers), "a worker process exited when the server went away"
        producer.join(120)
        assert producer.error is None, f"producer failed: {producer.error!r}"
        with psycopg.connect(url, autocommit=True) as conn:
            drain_s = wait_drained(conn, 180)
            fleet.stop_all()
            result = books.audit(conn, producer.committed)
        figures = {
            "jobs_enqueued_ok": result.enqueued, "enqueue_calls_failed": producer.failures,
            "restarts": len(restarts), "modes": ",".join(r["mode"] for r in restarts),
            "lost": result.lost, "unfinished": result.unfinished, "dead": result.dead,
            "duplicate_executions": result.duplicate_executions,
            "duplicate_terminal_writes": result.duplicate_terminal_writes,
            "duplicated_jobs_pids": str(result.duplicated_jobs)[:200] if result.duplicated_jobs else "none",
            "extra_jobs_from_uncertain_enqueues": result.unknown_terminal,
            "worst_restart_s": max(r["restart_s"] for r in restarts),
            "worst_resume_s": max(r["resume_s"] for r in restarts),
            "resume_s_each": " ".join(str(r["resume_s"]) for r in restarts),
            "drain_after_load_s": round(drain_s, 1), "worker_db_errors": len(fleet.errors()),
        }
        failures = []
        if result.lost or result.unfinished or result.dead or result.completed_without_execution:
            failures.append("a committed enqueue was lost, unfinished, dead or completed without running")
        if result.duplicate_terminal_writes:
            failures.append("duplicate terminal writes")
        if result.duplicate_executions:
            failures.append("jobs ran twice although every worker survived the restarts")
        if figures["worst_resume_s"] >= RESUME_PROMISE:
            failures.append("workers did not resume within 10 s")
        figures["failures"] = "; ".join(failures) or "none"
        return figures
    finally:
        fleet.close()
