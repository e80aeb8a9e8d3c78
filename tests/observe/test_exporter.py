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


@pytest.mark.serial  # no 'pgq-metrics' session on the server
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


def test_50000_queue_names_make_a_bounded_scrape_with_an_other_bucket(db_url: str) -> None:
    """At 50,000 names one 0007 scrape took 18.3 s, 34.7 MB and 600,002 series
    (design.md#queue-names-cost-nothing-when-idle)."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("insert into q_data.queue (name) select 'idle-' || g from generate_series(1, 50000) g")
        # 150 active queues, queue n with n waiting jobs: the 100 largest get a label, 50 are folded.
        conn.execute("select count(q.enqueue('busy-' || lpad(n::text, 3, '0'), '{}'))"
                     " from generate_series(1, 150) n, generate_series(1, n) k")
        conn.execute("analyze q_data.queue")
    exporter = Exporter(db_url, port=0, min_interval=0, query_timeout=5)
    address = exporter.start()
    try:
        started = time.perf_counter()
        host, port = address
        import urllib.request

        with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30) as response:
            body = response.read()
        took = time.perf_counter() - started
        samples = scrape(address)
    finally:
        exporter.stop()
    queues = {dict(labels).get("queue") for (name, labels) in samples if name == "pgq_queue_jobs"}
    print(f"\nscrape at 50,150 names (150 active): {len(samples)} series, {len(body)} bytes, {took * 1000:.0f} ms")
    assert value(samples, "pgq_up") == 1
    assert len(samples) < 1500, f"{len(samples)} series"
    assert queues == {f"busy-{n:03d}" for n in range(51, 151)} | {"_other"}
    assert value(samples, "pgq_queue_jobs", queue="_other", state="waiting") == sum(range(1, 51))
    assert value(samples, "pgq_queue_jobs", queue="busy-150", state="waiting") == 150
    assert value(samples, "pgq_exporter_queues", kind="folded") == 50
    assert value(samples, "pgq_exporter_queues_truncated") == 0


def test_the_exporter_works_as_pgq_monitor(db_url: str) -> None:
    import uuid

    name = f"pgq_mon_{uuid.uuid4().hex[:8]}"
    jobs_in_every_state(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"create role {name} login in role pgq_monitor")
        conn.execute("select q.configure('sms', concurrency => 4)")
    exporter = Exporter(psycopg.conninfo.make_conninfo(db_url, user=name), port=0, min_interval=0)
    address = exporter.start()
    try:
        samples = scrape(address)
    finally:
        exporter.stop()
        with psycopg.connect(db_url, autocommit=True) as conn:
            wait_for(lambda: one(db_url, "select count(*) from pg_stat_activity where usename = %s", (name,)) == 0,
                     10, "the exporter's session to end")
            conn.execute(f"drop role {name}")
    assert value(samples, "pgq_up") == 1
    assert value(samples, "pgq_queue_jobs", queue="emails", state="waiting") == 5
    assert value(samples, "pgq_queue_jobs_dead_total", queue="emails") == 1
    assert value(samples, "pgq_queue_limit", queue="sms", limit="concurrency") == 4
    assert value(samples, "pgq_queue_limit_used", queue="sms", limit="concurrency") == 0
