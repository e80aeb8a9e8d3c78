"""What a handler's outcome does to its job: complete, fail with the traceback, dead on a bad payload,
cancelled or lost while running, heartbeats for long jobs; and the asyncio twin."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from pgq_client import AsyncWorker, JobContext, Worker, enqueue
from pydantic import BaseModel
from worker_support import prepare, scalar, wait_for


def add(url: str, payload: Any, queue: str = "w") -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        return enqueue(conn, queue, payload)


def history(url: str, job_id: int) -> tuple[str, int, Any] | None:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("select state, attempt, errors from q_data.job_history where id = %s", (job_id,)).fetchone()


def running(worker: Worker):  # type: ignore[no-untyped-def]
    class Running:
        def __enter__(self) -> Worker:
            return worker.start()

        def __exit__(self, *exc: object) -> None:
            worker.stop()
            assert worker.join(15)

    return Running()


def test_returning_completes_the_job_and_raising_fails_it_with_the_traceback(db_url: str) -> None:
    prepare(db_url, max_attempts=2, backoff_base="0", backoff_max="0")

    def handler(payload: dict[str, Any]) -> None:
        if payload.get("boom"):
            raise ValueError("the payload asked for it")

    ok, bad = add(db_url, {"boom": False}), add(db_url, {"boom": True})
    with running(Worker(handler, "w", database_url=db_url)):
        wait_for(lambda: history(db_url, ok) and history(db_url, bad), 15, "both jobs to finish")
    assert history(db_url, ok)[0] == "completed"
    state, attempt, errors = history(db_url, bad)
    assert (state, attempt, len(errors)) == ("dead", 2, 2)
    assert "Traceback" in errors[0]["error"] and "ValueError: the payload asked for it" in errors[0]["error"]


class Email(BaseModel):
    to: str
    subject: str = ""


def test_payload_model_hands_the_handler_a_model_and_a_bad_payload_is_dead_at_once(db_url: str) -> None:
    prepare(db_url)
    got: list[Any] = []
    good, bad = add(db_url, {"to": "ada@example.com"}), add(db_url, {"subject": "no recipient"})
    with running(Worker(got.append, "w", database_url=db_url, payload=Email)):
        wait_for(lambda: history(db_url, good) and history(db_url, bad), 15, "both jobs to finish")
    assert got == [Email(to="ada@example.com")]
    state, attempt, errors = history(db_url, bad)
    assert (state, attempt) == ("dead", 1), "not retried: the payload will not get better"
    assert "invalid payload" in errors[0]["error"] and "to" in errors[0]["error"]


def test_a_cancelled_running_job_is_told_through_its_context(db_url: str) -> None:
    prepare(db_url, lease="3 seconds")  # heartbeats every second
    seen: dict[str, Any] = {}
    started = threading.Event()

    def handler(payload: Any, job: JobContext) -> None:
        started.set()
        seen["stopped"] = job.wait(20)
        seen["cancelled"] = job.cancelled
        job.check()

    job_id = add(db_url, {})
    with running(Worker(handler, "w", database_url=db_url)):
        assert started.wait(10)
        asked = time.monotonic()
        with psycopg.connect(db_url, autocommit=True) as conn:
            assert conn.execute("select q.cancel(%s)", (job_id,)).fetchone()[0]
        wait_for(lambda: "cancelled" in seen, 10, "the handler to notice")
        noticed = time.monotonic() - asked
    assert seen == {"stopped": True, "cancelled": True}
    assert noticed < 3.0
    assert history(db_url, job_id)[0] == "cancelled"


def test_heartbeats_keep_a_long_job_claimed_past_its_lease(db_url: str) -> None:
    prepare(db_url, lease="2 seconds")
    outcome: dict[str, Any] = {}

    def handler(payload: Any, job: JobContext) -> None:
        outcome["stopped_early"] = job.wait(4.5)  # more than twice the lease

    job_id = add(db_url, {})
    with running(Worker(handler, "w", database_url=db_url, reap_interval=0.2)):
        wait_for(lambda: history(db_url, job_id), 20, "the job to finish")
    assert outcome == {"stopped_early": False}
    state, attempt, errors = history(db_url, job_id)
    assert (state, attempt, errors) == ("completed", 1, None), "never reaped: the heartbeats kept the lease"


def test_a_result_that_comes_after_the_lease_ran_out_is_refused_and_logged_lost(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    prepare(db_url, lease="1 second", max_crashes=5)
    gate = threading.Event()
    finished: list[int] = []

    def handler(payload: Any, job: JobContext) -> None:
        if job.attempt == 1:
            gate.wait(10)  # stalls past its lease, with heartbeats blocked below
        finished.append(job.attempt)

    job_id = add(db_url, {})
    # A stalled worker, made from outside: in this test's own database, heartbeats reach the
    # server but renew nothing (q.heartbeat_many answers no row), so the lease runs out.
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("create or replace function q.heartbeat_many(ids bigint[], tokens uuid[],"
                     " lease interval default null, progress jsonb[] default null)"
                     " returns table (id bigint, status text)"
                     " language sql as $$ select null::bigint, null::text where false $$")
    worker = Worker(handler, "w", database_url=db_url, lease=timedelta(seconds=1))
    with caplog.at_level("WARNING", logger="pgq"), running(worker):
        wait_for(lambda: history(db_url, job_id), 20, "the second attempt to complete")
        gate.set()
        wait_for(lambda: len(finished) == 2, 10, "the stalled attempt to return")
        wait_for(lambda: any(r.event == "job_lost" for r in caplog.records if hasattr(r, "event")), 10, "job_lost")
    assert sorted(finished) == [1, 2]
    assert worker.completed == 1, "the stale attempt's complete must be refused"
    state, attempt, errors = history(db_url, job_id)
    assert state == "completed" and attempt == 2
    assert errors[0]["crashed"] is True


def test_async_worker_runs_coroutines_with_the_same_outcomes(db_url: str) -> None:
    prepare(db_url, max_attempts=1)

    async def handler(payload: dict[str, Any], job: JobContext) -> None:
        await asyncio.sleep(0.001)
        if payload["n"] % 10 == 0:
            raise RuntimeError(f"job {payload['n']} fails")

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.enqueue_many('w', (select jsonb_agg(jsonb_build_object('n', i))"
                     " from generate_series(1, 200) i))")

    async def main() -> None:
        worker = AsyncWorker(handler, "w", database_url=db_url, concurrency=20)
        task = asyncio.create_task(worker.run(install_signal_handlers=False))
        deadline = time.monotonic() + 20
        while scalar(db_url, "select count(*) from q_data.job_history") < 200:
            assert time.monotonic() < deadline, "the async worker did not finish 200 jobs"
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(task, 15)

    asyncio.run(main())
    with psycopg.connect(db_url, autocommit=True) as conn:
        counts = dict(conn.execute("select state, count(*) from q_data.job_history group by state").fetchall())
        assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0
    assert counts == {"completed": 180, "dead": 20}


def test_worker_settings_are_checked_up_front() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        Worker(print, "w", database_url="dbname=x", concurrency=0)
    with pytest.raises(ValueError, match="batch_size"):
        Worker(print, "w", database_url="dbname=x", batch_size=5000)
    with pytest.raises(ValueError, match="queues"):
        Worker(print, [], database_url="dbname=x")
