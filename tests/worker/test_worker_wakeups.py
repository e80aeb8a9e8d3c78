"""How fast an idle worker notices new work: NOTIFY, the poll fallback, and a listener that was killed."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest
from pgq_client import Worker, enqueue
from worker_support import listener_pids, prepare, wait_for

# Pickups under 1 s:
# CPU contention from tests running beside it could break that (make test runs serial tests alone).
pytestmark = pytest.mark.serial


class Starts:
    """A handler that records when each job started."""

    def __init__(self) -> None:
        self.started: dict[Any, float] = {}
        self.lock = threading.Lock()

    def __call__(self, payload: dict[str, Any]) -> None:
        with self.lock:
            self.started[payload["n"]] = time.monotonic()


def pickup_seconds(url: str, starts: Starts, n: int) -> float:
    """Seconds from just before the enqueue (its commit included) to the handler's start."""
    with psycopg.connect(url, autocommit=True) as conn:
        enqueue(conn, "other", {})  # warm the session up, so the timing is the queue's, not a new backend's
        sent = time.monotonic()
        enqueue(conn, "w", {"n": n})
    wait_for(lambda: n in starts.started, 10, f"job {n} to start")
    return starts.started[n] - sent


def idle(seconds: float = 0.3) -> None:
    time.sleep(seconds)  # let the worker's first (empty) claims pass, so it is truly idle


def test_idle_worker_starts_a_new_job_well_under_the_poll_interval_thanks_to_listen(db_url: str) -> None:
    prepare(db_url)
    starts = Starts()
    worker = Worker(starts, "w", database_url=db_url, poll_interval=30.0).start()
    try:
        wait_for(lambda: listener_pids(db_url), 10, "the listener")
        idle()
        latencies = sorted(pickup_seconds(db_url, starts, n) for n in range(5))
    finally:
        worker.stop()
        assert worker.join(10)
    print(f"idle pickup with LISTEN: median {latencies[2] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
    # The poll is 30 s away: only the notification can explain a start within a second.
    assert latencies[-1] < 1.0


def test_without_listen_a_new_job_still_starts_within_the_poll_interval(db_url: str) -> None:
    prepare(db_url)
    starts = Starts()
    worker = Worker(starts, "w", database_url=db_url, poll_interval=1.0, listen=False).start()
    try:
        wait_for(lambda: listener_pids(db_url), 10, "the liveness connection")
        idle()
        latencies = [pickup_seconds(db_url, starts, n) for n in range(3)]
    finally:
        worker.stop()
        assert worker.join(10)
    print(f"idle pickup polling every 1 s: {[round(x * 1000) for x in latencies]} ms")
    assert max(latencies) < 1.0 + 1.0  # the interval, plus room for a loaded machine


def test_worker_relistens_after_its_listener_backend_is_terminated_and_keeps_working(db_url: str) -> None:
    prepare(db_url)
    starts = Starts()
    worker = Worker(starts, "w", database_url=db_url, poll_interval=30.0).start()
    try:
        first = wait_for(lambda: listener_pids(db_url), 10, "the listener")
        idle()
        assert pickup_seconds(db_url, starts, 0) < 1.0
        with psycopg.connect(db_url, autocommit=True) as conn:
            assert conn.execute("select pg_terminate_backend(%s)", (first[0],)).fetchone()[0]
        wait_for(lambda: (p := listener_pids(db_url)) and p != first, 10, "a new listener connection")
        idle()
        again = [pickup_seconds(db_url, starts, n) for n in (1, 2)]
    finally:
        worker.stop()
        assert worker.join(10)
    assert max(again) < 1.0, f"after the listener was killed, jobs started after {again} s (poll is 30 s)"


def test_one_notification_wakes_the_worker_once_and_a_full_claim_claims_again_at_once(db_url: str) -> None:
    """A burst bigger than one claim is drained back to back, without waiting for the next poll."""
    prepare(db_url)
    starts = Starts()
    worker = Worker(starts, "w", database_url=db_url, poll_interval=30.0, concurrency=2, batch_size=5).start()
    try:
        wait_for(lambda: listener_pids(db_url), 10, "the listener")
        idle()
        with psycopg.connect(db_url, autocommit=True) as conn:
            sent = time.monotonic()
            conn.execute("select q.enqueue_many('w', (select jsonb_agg(jsonb_build_object('n', i))"
                         " from generate_series(1, 200) i))")
        wait_for(lambda: len(starts.started) == 200, 20, "200 jobs to start")
    finally:
        worker.stop()
        assert worker.join(10)
    assert max(starts.started.values()) - sent < 10.0  # one NOTIFY, 40 claims of 5, no poll in between
