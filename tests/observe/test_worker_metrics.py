"""A worker's Prometheus endpoint (metrics_port): scraped during a drain, its figures match the database."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time
from typing import Any

import psycopg
import pytest
from observe_support import one, scrape, value, wait_for
from pgq_client import AsyncWorker, StartupError, Worker, enqueue, enqueue_many

JOBS = 60
FAILING = {n for n in range(JOBS) if n % 5 == 0}  # 12 jobs raise; max_attempts 1 makes them dead at once


def setup_queue(url: str, **settings: Any) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.configure('w', keep_completed => true, max_attempts => 1)")


def history_count(url: str, state: str) -> int:
    return int(one(url, "select count(*) from q_data.job_history where state = %s", (state,)))


def test_scraped_during_a_drain_the_worker_figures_match_the_database(db_url: str) -> None:
    setup_queue(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        enqueue_many(conn, "w", [{"n": n} for n in range(JOBS)])
    gate = threading.Event()

    def handler(payload: dict[str, Any]) -> None:
        gate.wait(30)
        if payload["n"] in FAILING:
            raise ValueError("mailbox full")

    # batch_size = concurrency: no prefetch, so every job the worker holds is running in a handler.
    worker = Worker(handler, "w", database_url=db_url, concurrency=4, batch_size=4, metrics_port=0,
                    reap_interval=0.2)
    worker.start()
    try:
        address = wait_for(lambda: worker.metrics_address, 10, "the metrics endpoint")
        running = wait_for(lambda: value(scrape(address), "pgq_worker_jobs_running", queue="w") == 4 and
                           scrape(address), 15, "four handlers running")
        # Handlers are held at the gate: the worker's books and the database agree exactly.
        assert one(db_url, "select count(*) from q_data.job where state = 'r'") == 4
        assert value(running, "pgq_worker_jobs_held", queue="w") == 4
        assert value(running, "pgq_worker_jobs_claimed_total", queue="w") == 4
        assert value(running, "pgq_worker_jobs_completed_total", queue="w") == 0
        gate.set()
        # During the drain: the counter never goes back and never runs ahead of the database
        # (a job is counted once the database accepted its result).
        seen, scrapes = 0.0, 0
        while history_count(db_url, "completed") + history_count(db_url, "dead") < JOBS:
            samples = scrape(address)
            done = value(samples, "pgq_worker_jobs_completed_total", queue="w")
            assert done is not None and seen <= done <= history_count(db_url, "completed")
            seen, scrapes = done, scrapes + 1
            time.sleep(0.01)
        final = wait_for(lambda: (s := scrape(address)) and
                         value(s, "pgq_worker_jobs_completed_total", queue="w") == JOBS - len(FAILING) and s,
                         10, "the last outcomes to be counted")
        # The worker's reaper turn comes about once a second; a drain on a fast (or a
        # loaded) machine can end before the first one, so wait for it rather than race it.
        final = wait_for(lambda: (s := scrape(address)) and
                         (value(s, "pgq_worker_reap_duration_seconds_count") or 0) >= 1 and s,
                         10, "a reaper turn to be timed")
    finally:
        gate.set()
        worker.stop()
        assert worker.join(15)
    assert scrapes >= 1
    assert history_count(db_url, "completed") == JOBS - len(FAILING)
    assert value(final, "pgq_worker_jobs_failed_total", queue="w", status="dead") == history_count(db_url, "dead") == 12
    assert value(final, "pgq_worker_jobs_failed_total", queue="w", status="retry") == 0
    assert value(final, "pgq_worker_jobs_claimed_total", queue="w") == JOBS
    assert value(final, "pgq_worker_jobs_lost_total", queue="w") == 0
    assert value(final, "pgq_worker_jobs_running", queue="w") == 0
    assert value(final, "pgq_worker_jobs_held", queue="w") == 0
    assert value(final, "pgq_worker_job_duration_seconds_count", queue="w") == JOBS
    assert value(final, "pgq_worker_claim_duration_seconds_count", queue="w") >= JOBS / 4
    assert value(final, "pgq_worker_reap_duration_seconds_count") >= 1  # type: ignore[operator]
    assert value(final, "pgq_worker_events_total", event="worker_started") == 1
    assert value(final, "pgq_worker_events_total", event="job_dead") == 12
    assert value(final, "pgq_worker_rounds_total") >= JOBS / 4  # type: ignore[operator]
    assert value(final, "pgq_worker_info", name=worker.options.name, mode="listen") == 1


def test_a_result_the_database_refuses_counts_as_a_lost_claim(db_url: str) -> None:
    setup_queue(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        job_id = enqueue(conn, "w", {"n": 1})

    def handler(payload: dict[str, Any]) -> None:
        # Someone else took the claim over while the handler ran: the complete is refused.
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("update q_data.job set token = gen_random_uuid() where id = %s", (job_id,))

    worker = Worker(handler, "w", database_url=db_url, concurrency=1, metrics_port=0)
    worker.start()
    try:
        address = wait_for(lambda: worker.metrics_address, 10, "the metrics endpoint")
        samples = wait_for(lambda: (s := scrape(address)) and value(s, "pgq_worker_jobs_lost_total", queue="w") == 1
                           and s, 15, "the lost claim to be counted")
    finally:
        worker.stop()
        assert worker.join(15)
    assert value(samples, "pgq_worker_jobs_completed_total", queue="w") == 0
    assert value(samples, "pgq_worker_events_total", event="job_lost") == 1


def test_the_async_worker_serves_the_same_metrics(db_url: str) -> None:
    setup_queue(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        enqueue_many(conn, "w", [{"n": n} for n in range(10)])

    async def handler(payload: dict[str, Any]) -> None:
        await asyncio.sleep(0)

    async def main() -> tuple[str, int]:
        worker = AsyncWorker(handler, "w", database_url=db_url, metrics_port=0)
        worker.start()
        try:
            while worker.metrics_address is None or history_count(db_url, "completed") < 10:
                await asyncio.sleep(0.05)
            address = worker.metrics_address
            for _ in range(200):
                samples = await asyncio.to_thread(scrape, address)
                if value(samples, "pgq_worker_jobs_completed_total", queue="w") == 10:
                    break
                await asyncio.sleep(0.05)
            assert value(samples, "pgq_worker_jobs_completed_total", queue="w") == 10
            return address
        finally:
            worker.stop()
            assert await worker.join(15)

    host, port = asyncio.run(asyncio.wait_for(main(), 60))
    with pytest.raises(OSError):  # the endpoint stopped with the worker
        scrape((host, port))


def test_metrics_without_prometheus_client_or_on_a_taken_port_stop_the_worker_with_the_fix(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        worker = Worker(print, "w", database_url=db_url, metrics_port=port)
        with pytest.raises(StartupError, match=f"cannot serve metrics on 127.0.0.1:{port}: Address already in use"):
            worker.run(install_signal_handlers=False)
    monkeypatch.setitem(sys.modules, "pgq_client.worker._prometheus", None)  # as if prometheus_client were absent
    worker = Worker(print, "w", database_url=db_url, metrics_port=0)
    with pytest.raises(StartupError, match=r"pip install 'pgq-client\[metrics\]'"):
        worker.run(install_signal_handlers=False)


def test_pgq_worker_metrics_port_serves_the_endpoint_it_logs(db_url: str, tmp_path: Any) -> None:
    import os
    import signal
    import subprocess
    from pathlib import Path

    setup_queue(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        enqueue_many(conn, "w", [{"n": n} for n in range(5)])
    pgq = str(Path(sys.executable).with_name("pgq"))
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        proc = subprocess.Popen([pgq, "worker", "json:dumps", "-q", "w", "--metrics-port", "0"], stdout=out,
                                stderr=subprocess.STDOUT, env={**os.environ, "DATABASE_URL": db_url})
    try:
        text = wait_for(lambda: "metrics=http://127.0.0.1:" in log.read_text() and log.read_text(), 20,
                        "worker_started with the metrics address")
        port = int(text.split("metrics=http://127.0.0.1:", 1)[1].split("/", 1)[0])
        samples = wait_for(lambda: (s := scrape(("127.0.0.1", port))) and
                           value(s, "pgq_worker_jobs_completed_total", queue="w") == 5 and s, 20, "5 completed")
        assert value(samples, "pgq_worker_events_total", event="listener_connected") == 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
