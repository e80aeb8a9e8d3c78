"""`pgq metrics`: the standalone exporter reads the queues when scraped, at a bounded cost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psycopg
import pytest
from observe_support import one, scrape, value, wait_for
from pgq_client import claim, enqueue, enqueue_many
from pgq_client.exporter import Exporter

PGQ = str(Path(sys.executable).with_name("pgq"))


def jobs_in_every_state(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.configure('emails', max_attempts => 1)")
        enqueue_many(conn, "emails", [{"n": n} for n in range(7)])
        enqueue(conn, "emails", {"later": True}, run_at=None)
        conn.execute("select q.enqueue('emails', '{}', run_at => now() + interval '1 hour')")
        enqueue_many(conn, "sms", [{"n": n} for n in range(3)])
        (job,) = claim(conn, "emails", 1)
        conn.execute("select q.fail(%s, %s, 'boom')", (job.id, job.token))  # dead at once
        claim(conn, "emails", 2)  # running
        conn.execute("update q_data.job set run_at = run_at - interval '90 seconds' where state = 'w'")
        conn.execute("select q.pause('sms')")


def test_pgq_metrics_serves_what_q_stats_says(db_url: str, tmp_path: Path) -> None:
    jobs_in_every_state(db_url)
    log = tmp_path / "metrics.log"
    env = {**os.environ, "DATABASE_URL": db_url, "PYTHONUNBUFFERED": "1"}
    with log.open("w") as out:
        proc = subprocess.Popen([PGQ, "metrics", "--port", "0", "--min-interval", "0"], stdout=out,
                                stderr=subprocess.STDOUT, env=env)
    try:
        line = wait_for(lambda: "serving pgq metrics at" in log.read_text() and log.read_text(), 20,
                        "the exporter to listen")
        port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        samples = scrape(("127.0.0.1", port))
        with psycopg.connect(db_url, autocommit=True) as conn:
            stats = {r[0]: r for r in conn.execute(
                "select queue, paused, waiting, scheduled, running, dead, oldest_waiting from q.stats()")}
        assert value(samples, "pgq_up") == 1
        for queue, (_, paused, waiting, scheduled, running, dead, oldest) in stats.items():
            for state, count in (("waiting", waiting), ("scheduled", scheduled), ("running", running),
                                 ("dead", dead)):
                assert value(samples, "pgq_queue_jobs", queue=queue, state=state) == count, (queue, state)
            assert value(samples, "pgq_queue_paused", queue=queue) == (1 if paused else 0)
            assert value(samples, "pgq_queue_oldest_waiting_seconds", queue=queue) == pytest.approx(
                oldest.total_seconds(), abs=5)
        assert (stats["emails"][2:6], stats["sms"][1:3]) == ((5, 1, 2, 1), (True, 3))
        with psycopg.connect(db_url, autocommit=True) as conn:
            observability = conn.execute("select to_regproc('q.throughput_totals') is not null").fetchone()[0]  # type: ignore[index]
        if observability:  # revision 0006: throughput counters from q.throughput_totals(); exact counts flagged so
            with psycopg.connect(db_url, autocommit=True) as conn:
                totals = conn.execute("select queue, completed, failed, dead from q.throughput_totals()").fetchall()
            assert ("emails", 0, 0, 1) in totals
            for queue, completed, failed, dead in totals:
                assert value(samples, "pgq_queue_jobs_completed_total", queue=queue) == completed
                assert value(samples, "pgq_queue_jobs_failed_total", queue=queue) == failed
                assert value(samples, "pgq_queue_jobs_dead_total", queue=queue) == dead
            for queue in stats:
                for state in ("waiting", "scheduled", "dead"):
                    assert value(samples, "pgq_queue_jobs_estimated", queue=queue, state=state) == 0
        else:
            assert value(samples, "pgq_queue_jobs_completed_total", queue="emails") is None
        assert value(samples, "pgq_queue_oldest_waiting_seconds", queue="emails") >= 89  # type: ignore[operator]
        # A change in the database shows in the next scrape (read per request, no cache at --min-interval 0).
        with psycopg.connect(db_url, autocommit=True) as conn:
            enqueue(conn, "emails", {"n": 99})
        assert value(scrape(("127.0.0.1", port)), "pgq_queue_jobs", queue="emails", state="waiting") == 6
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_scrapes_are_bounded_shared_reads_and_a_blocked_database_gives_pgq_up_0(db_url: str) -> None:
    jobs_in_every_state(db_url)
    exporter = Exporter(db_url, port=0, min_interval=30, query_timeout=0.5)
    address = exporter.start()
    try:
        # A scrape storm: 20 scrapes at once, one read of the database.
        results: list[float | None] = []
        threads = [threading.Thread(target=lambda: results.append(value(scrape(address), "pgq_up")))
                   for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [1] * 20 and exporter.collector.reads == 1
    finally:
        exporter.stop()

    exporter = Exporter(db_url, port=0, min_interval=0, query_timeout=0.5)
    address = exporter.start()
    try:
        with psycopg.connect(db_url) as locker:  # holds q_data.queue locked, as a long migration would
            locker.execute("lock table q_data.queue in access exclusive mode")
            started = time.monotonic()
            samples = scrape(address)
            took = time.monotonic() - started
            locker.rollback()
        assert value(samples, "pgq_up") == 0 and value(samples, "pgq_queue_jobs", queue="emails",
                                                       state="waiting") is None
        assert took < 5, f"the scrape waited {took:.1f} s: statement_timeout did not bound it"
        samples = scrape(address)  # the database is back: reconnects, reads again
        assert value(samples, "pgq_up") == 1
        assert value(samples, "pgq_queue_jobs", queue="emails", state="waiting") == 5
    finally:
        exporter.stop()
    # Its connection is closed with it (a backend leaves pg_stat_activity a moment after the close).
    wait_for(lambda: one(db_url, "select count(*) from pg_stat_activity where application_name = 'pgq-metrics'")
             == 0, 10, "the exporter's connection to go")


def test_pgq_metrics_without_prometheus_client_says_which_extra_to_install(db_url: str) -> None:
    script = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "prometheus_client":
                    raise ImportError(f"blocked: {name}")
                return None
        sys.meta_path.insert(0, Block())
        from pgq_client.cli import main
        sys.argv = ["pgq", "metrics"]
        main()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DATABASE_URL": db_url, "COLUMNS": "200"})
    assert done.returncode == 1
    assert "pip install 'pgq-client[metrics]'" in done.stderr and "Traceback" not in done.stderr
