"""Results, progress and pushed cancellation (design.md#results-and-dependencies): a handler's
return value is its job's result, read from another connection; ctx.progress reaches q.result;
wait_results wakes on the outcome and times out; q.cancel stops a running handler at once, not at
its next heartbeat; `pgq result`."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import threading
import time
from typing import Any

import psycopg
from pgq_client import AsyncWorker, JobContext, Worker, aio, enqueue, result, wait_results
from worker_support import prepare, wait_for

log = logging.getLogger(__name__)


def add(url: str, payload: Any, queue: str = "w") -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        return enqueue(conn, queue, payload)


def read(url: str, job_id: int) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:  # another session than the worker's
        return result(conn, job_id)


def test_a_handlers_return_value_and_progress_are_read_through_q_result(db_url: str) -> None:
    prepare(db_url, keep_completed=False)
    progressed = threading.Event()
    go_on = threading.Event()

    def handler(payload: dict[str, Any], job: JobContext) -> Any:
        if payload.get("none"):
            return None
        job.progress({"done": 1, "of": 2})
        progressed.set()
        go_on.wait(10)
        return {"sum": payload["a"] + payload["b"], "when": "now"}

    with_result, without = add(db_url, {"a": 2, "b": 3}), add(db_url, {"none": True})
    worker = Worker(handler, "w", database_url=db_url, concurrency=2)
    worker.start()
    try:
        assert progressed.wait(10)
        seen = wait_for(lambda: read(db_url, with_result).progress, 10, "the progress to reach the database")
        assert read(db_url, with_result).state == "running"
        go_on.set()
        wait_for(lambda: read(db_url, with_result).state == "completed", 10, "the job to complete")
    finally:
        worker.stop()
        assert worker.join(15)
    assert seen == {"done": 1, "of": 2}
    done = read(db_url, with_result)
    assert (done.state, done.result, done.attempts, done.progress) == ("completed", {"sum": 5, "when": "now"}, 1,
                                                                        {"done": 1, "of": 2})
    assert done.finished_at is not None
    # No result and no history (keep_completed off): nothing was kept, the id is unknown.
    assert read(db_url, without).state == "unknown"


def test_a_return_value_the_encoder_cannot_write_fails_the_job_not_the_worker(db_url: str) -> None:
    prepare(db_url, max_attempts=1)
    job_id = add(db_url, {})
    worker = Worker(lambda payload: object(), "w", database_url=db_url)
    worker.start()
    try:
        wait_for(lambda: read(db_url, job_id).state == "dead", 10, "the job to be dead")
    finally:
        worker.stop()
        assert worker.join(15)
    assert "cannot be stored as its result" in (read(db_url, job_id).last_error or "")


def test_an_over_size_result_fails_its_job_and_the_other_results_are_kept(db_url: str) -> None:
    prepare(db_url, max_attempts=1, max_result_size=100)
    small, big = add(db_url, {"n": 1}), add(db_url, {"n": 300})
    worker = Worker(lambda payload: "x" * payload["n"], "w", database_url=db_url, concurrency=2)
    worker.start()
    try:
        wait_for(lambda: all(r.finished for r in [read(db_url, small), read(db_url, big)]), 15, "both to finish")
    finally:
        worker.stop()
        assert worker.join(15)
    assert read(db_url, small).result == "x"
    refused = read(db_url, big)
    assert refused.state == "dead" and "max_result_size" in (refused.last_error or "")


def test_wait_results_wakes_when_the_job_finishes_and_times_out_otherwise(db_url: str) -> None:
    prepare(db_url)
    finished, never = add(db_url, {}), add(db_url, {})

    def finish_soon() -> None:
        time.sleep(0.5)
        with psycopg.connect(db_url, autocommit=True) as conn:
            job = aio_claim_one(conn)
            conn.execute("select q.complete(%s, %s, %s)", (job[0], job[1], json.dumps({"ok": True})))

    def aio_claim_one(conn: psycopg.Connection[Any]) -> tuple[int, Any]:
        row = conn.execute("select id, token from q.claim('w', 1)").fetchone()
        assert row is not None and row[0] == finished
        return row[0], row[1]

    with psycopg.connect(db_url, autocommit=True) as conn:
        threading.Thread(target=finish_soon).start()
        started = time.monotonic()
        # recheck=30: only the notification can end this wait early
        [got] = wait_results(conn, [finished], timeout=20, recheck=30)
        woke_after = time.monotonic() - started
        assert (got.state, got.result) == ("completed", {"ok": True})
        log.info("wait_results woke %.3f s after it began (the job completed after ~0.5 s)", woke_after)
        assert woke_after < 20, "woken by the NOTIFY, not by the timeout"

        started = time.monotonic()
        [still] = wait_results(conn, [never], timeout=0.5)
        assert still.state == "waiting" and not still.finished
        assert time.monotonic() - started >= 0.5
        # the finished job's registration went with its completion
        left = conn.execute("select count(*) from q_data.result_waiter where job_id = %s", (finished,)).fetchone()
        assert left is not None and left[0] == 0


def test_async_wait_results_sees_a_cancelled_job(db_url: str) -> None:
    prepare(db_url)
    asyncio.run(_async_wait_results_sees_a_cancelled_job(db_url, add(db_url, {})))


async def _async_wait_results_sees_a_cancelled_job(db_url: str, job_id: int) -> None:

    async def cancel_soon() -> None:
        await asyncio.sleep(0.3)
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as other:
            await aio.cancel(other, job_id)

    async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
        task = asyncio.create_task(cancel_soon())
        [got] = await aio.wait_results(conn, [job_id], timeout=20, recheck=30)
        await task
    assert got.state == "cancelled"


def test_q_cancel_stops_an_async_handler_at_once_not_at_its_next_heartbeat(db_url: str) -> None:
    # Lease 60 s: the next heartbeat is 20 s away. The handler sleeps 30 s unless cancelled.
    prepare(db_url, lease="60 seconds")
    asyncio.run(_q_cancel_stops_an_async_handler(db_url))


async def _q_cancel_stops_an_async_handler(db_url: str) -> None:
    started = asyncio.Event()
    seen: dict[str, Any] = {}

    async def handler(payload: Any, job: JobContext) -> None:
        started.set()
        try:
            await asyncio.sleep(30)
            seen["outcome"] = "slept"
        except asyncio.CancelledError:
            seen["outcome"] = "cancelled"
            seen["at"] = time.monotonic()
            seen["status"] = job.status
            raise

    job_id = add(db_url, {})
    worker = AsyncWorker(handler, "w", database_url=db_url)
    runner = asyncio.create_task(worker.run(install_signal_handlers=False))
    try:
        await asyncio.wait_for(started.wait(), 10)
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            asked = time.monotonic()
            assert await aio.cancel(conn, job_id)
            for _ in range(200):
                if "outcome" in seen:
                    break
                await asyncio.sleep(0.05)
            finished = await aio.result(conn, job_id)
    finally:
        worker.stop()
        await asyncio.wait_for(runner, 15)
    assert seen.get("outcome") == "cancelled", seen
    assert seen["status"] == "cancelled"
    assert finished.state == "cancelled"
    log.info("pushed cancel: the async handler saw CancelledError %.1f ms after q.cancel returned",
             (seen["at"] - asked) * 1000)
    assert worker.completed == 0


def test_q_cancel_tells_a_thread_handler_at_once(db_url: str) -> None:
    prepare(db_url, lease="60 seconds")
    started = threading.Event()
    seen: dict[str, Any] = {}

    def handler(payload: Any, job: JobContext) -> None:
        started.set()
        seen["stopped"] = job.wait(30)  # True when told to stop
        seen["at"] = time.monotonic()
        seen["cancelled"] = job.cancelled

    job_id = add(db_url, {})
    worker = Worker(handler, "w", database_url=db_url)
    worker.start()
    try:
        assert started.wait(10)
        with psycopg.connect(db_url, autocommit=True) as conn:
            asked = time.monotonic()
            assert conn.execute("select q.cancel(%s)", (job_id,)).fetchone()[0]
        wait_for(lambda: "stopped" in seen, 25, "the handler to be told")
    finally:
        worker.stop()
        assert worker.join(15)
    assert seen["stopped"] is True and seen["cancelled"] is True
    log.info("pushed cancel: the thread handler's wait() returned %.1f ms after q.cancel", (seen["at"] - asked) * 1000)
    assert read(db_url, job_id).state == "cancelled"


def test_pgq_result_prints_a_job_and_waits_for_it(db_url: str) -> None:
    prepare(db_url)
    job_id = add(db_url, {})
    with psycopg.connect(db_url, autocommit=True) as conn:
        row = conn.execute("select id, token from q.claim('w', 1)").fetchone()
        assert row is not None
        conn.execute("select q.heartbeat(%s, %s, progress => %s)", (row[0], row[1], json.dumps({"step": 2})))
        conn.execute("select q.complete(%s, %s, %s)", (row[0], row[1], json.dumps({"answer": 42})))
    env = {"DATABASE_URL": db_url, "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "pgq_client", "result", str(job_id), "--json"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    shown = json.loads(run.stdout)
    assert (shown["state"], shown["result"], shown["progress"]) == ("completed", {"answer": 42}, {"step": 2})

    waiting = add(db_url, {})
    run = subprocess.run([sys.executable, "-m", "pgq_client", "result", str(waiting), "--wait", "0.5"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 1, "still unfinished when the wait is over"
    assert "waiting" in run.stdout
