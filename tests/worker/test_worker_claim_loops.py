"""Several claim loops per worker (``claim_loops``): their round trips really are in flight at once,
every job is still recorded exactly once, and one notification wakes one idle loop, not all of them."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from typing import Any

import psycopg
import pytest
from pgq_client import AsyncWorker, JobContext, Worker, enqueue
from psycopg.conninfo import conninfo_to_dict
from worker_support import listener_pids, prepare, scalar, wait_for


def fill(url: str, count: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.enqueue_many('w', (select jsonb_agg(jsonb_build_object('n', i))"
                     " from generate_series(1, %s) i))", (count,))


def claims_waiting_on_a_lock(url: str) -> int:
    """Worker sessions whose claim statement is running and waiting for a lock."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "select count(*) from pg_stat_activity where datname = %s and application_name like 'pgq-worker:%%'"
            " and state = 'active' and wait_event_type = 'Lock' and query like '%%q.claim(%%'",
            (conninfo_to_dict(url)["dbname"],),
        ).fetchone()[0]


def books(url: str) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "select (select count(*) from q_data.job),"
            " (select count(*) from q_data.job_history where state = 'completed'),"
            " (select count(distinct id) from q_data.job_history where state = 'completed'),"
            " (select count(*) from q_data.job_history where state <> 'completed')"
        ).fetchone()
    return dict(zip(("left", "completed", "distinct_completed", "dead_or_cancelled"), row, strict=True))


@pytest.mark.parametrize("flavour", ["threads", "asyncio"])
def test_four_claim_loops_have_four_claims_on_their_way_at_once(db_url: str, flavour: str) -> None:
    """A lock on q_data.job holds every claim in the server: all four loops' claims are seen waiting together."""
    prepare(db_url)
    fill(db_url, 40)
    options: dict[str, Any] = dict(database_url=db_url, concurrency=4, batch_size=1, claim_loops=4,
                                   poll_interval=30.0)
    with psycopg.connect(db_url) as blocker:
        blocker.execute("lock table q_data.job in access exclusive mode")
        if flavour == "threads":
            worker: Any = Worker(lambda payload: None, "w", **options).start()
            stop = worker.stop
        else:
            worker = AsyncWorker(lambda payload: None, "w", **options)
            loop = asyncio.new_event_loop()
            runner = threading.Thread(target=loop.run_until_complete,
                                      args=(worker.run(install_signal_handlers=False),), daemon=True)
            runner.start()

            def stop() -> None:
                loop.call_soon_threadsafe(worker.stop)

        try:
            seen = wait_for(lambda: claims_waiting_on_a_lock(db_url) >= 4 and claims_waiting_on_a_lock(db_url),
                            15, "four claims waiting on the lock at once")
            blocker.rollback()  # let them through
            wait_for(lambda: books(db_url)["completed"] == 40, 30, "every job to complete")
        finally:
            blocker.rollback()
            stop()
            if flavour == "threads":
                assert worker.join(15)
            else:
                runner.join(15)
                assert not runner.is_alive()
                loop.close()
    assert seen == 4
    assert worker.peak_rounds_in_flight == 4
    assert books(db_url) == {"left": 0, "completed": 40, "distinct_completed": 40, "dead_or_cancelled": 0}


def test_eight_claim_loops_record_five_thousand_outcomes_exactly_once(db_url: str) -> None:
    """Completes and failures from eight loops at once: each job runs once per attempt and ends completed once."""
    total = 5000
    prepare(db_url, max_attempts=2, backoff_base="0", backoff_max="0")
    fill(db_url, total)
    runs: Counter[tuple[int, int]] = Counter()
    lock = threading.Lock()

    def handler(payload: dict[str, Any], job: JobContext) -> None:
        with lock:
            runs[(payload["n"], job.attempt)] += 1
        if payload["n"] % 7 == 0 and job.attempt == 1:
            raise RuntimeError("fails once, completes on the retry")

    worker = Worker(handler, "w", database_url=db_url, concurrency=16, batch_size=3, claim_loops=8,
                    poll_interval=0.2).start()
    try:
        wait_for(lambda: books(db_url)["completed"] >= total, 120, "every job to complete", step=0.1)
    finally:
        worker.stop()
        assert worker.join(15)
    retried = {n for n in range(1, total + 1) if n % 7 == 0}
    expected = Counter({(n, 1): 1 for n in range(1, total + 1)} | {(n, 2): 1 for n in retried})
    assert runs == expected, "a job ran twice in one attempt, or never"
    assert books(db_url) == {"left": 0, "completed": total, "distinct_completed": total, "dead_or_cancelled": 0}
    assert worker.completed == total
    assert scalar(db_url, "select count(*) from q_data.job_history where attempt = 2") == len(retried)
    assert worker.peak_rounds_in_flight > 1, "the loops never overlapped"


def test_async_worker_with_several_claim_tasks_records_every_job_once(db_url: str) -> None:
    total = 2000
    prepare(db_url)
    fill(db_url, total)
    runs: Counter[int] = Counter()

    async def handler(payload: dict[str, Any]) -> None:
        runs[payload["n"]] += 1
        await asyncio.sleep(0)

    async def main() -> AsyncWorker:
        worker = AsyncWorker(handler, "w", database_url=db_url, concurrency=12, batch_size=2, claim_loops=6)
        task = asyncio.create_task(worker.run(install_signal_handlers=False))
        deadline = time.monotonic() + 60
        while scalar(db_url, "select count(*) from q_data.job_history") < total:
            assert time.monotonic() < deadline, "the async worker did not finish"
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(task, 15)
        return worker

    worker = asyncio.run(main())
    assert runs == Counter(range(1, total + 1))
    assert books(db_url) == {"left": 0, "completed": total, "distinct_completed": total, "dead_or_cancelled": 0}
    assert worker.peak_rounds_in_flight > 1


def test_one_notification_wakes_one_idle_loop_not_all_four(db_url: str) -> None:
    """Waking every idle loop would send four claims for one job; one claim and one complete are enough."""
    prepare(db_url)
    started = threading.Event()
    worker = Worker(lambda payload: started.set(), "w", database_url=db_url, concurrency=8, claim_loops=4,
                    poll_interval=30.0).start()
    try:
        wait_for(lambda: listener_pids(db_url), 10, "the listener")
        time.sleep(0.5)  # the first claims (every loop claims once the listener is up) come back empty
        before = worker.rounds_sent
        with psycopg.connect(db_url, autocommit=True) as conn:
            enqueue(conn, "w", {})
        assert started.wait(10)
        wait_for(lambda: books(db_url)["completed"] == 1, 10, "the job to complete")
        time.sleep(0.3)
        rounds = worker.rounds_sent - before
    finally:
        worker.stop()
        assert worker.join(10)
    # One claim (it finds the job: a loop claims again, since only an empty claim makes enqueues notify
    # it), the empty claim that starts its wait, two more looks, at once and WAIT_RECHECK later (the race:
    # sql/triggers/notify_enqueued.sql), and the complete, which the handler's report sends with a claim
    # of its own when it comes while the queue is still worth one. Four loops woken at the NOTIFY would
    # add three claims at once to these.
    assert rounds <= 6, f"{rounds} round trips for one job: claim, empty claim, two more looks, complete"


def test_claim_loops_default_from_the_batch_size_and_never_exceed_the_concurrency() -> None:
    def loops(**options: Any) -> int:
        return Worker(print, "w", database_url="dbname=x", **options).options.loops

    assert loops(concurrency=10, batch_size=1) == 10
    assert loops(concurrency=10, batch_size=3) == 4
    assert loops(concurrency=10, batch_size=50) == 1
    assert loops(concurrency=10) == 4
    assert loops(concurrency=2) == 2
    assert loops(concurrency=3, claim_loops=8) == 3
    assert Worker(print, "w", database_url="dbname=x", concurrency=10, batch_size=1).options.pool_size == 21
    with pytest.raises(ValueError, match="claim_loops"):
        Worker(print, "w", database_url="dbname=x", claim_loops=0)
