"""One producer's payload killed other producers' jobs (design.md#one-job-hurts-only-itself).
``{"n": 1e4300}`` is stored as a 4,301-digit integer that Python's json refuses, and psycopg raised while
reading the claim's answer, after the claim had committed: the whole batch stayed claimed until its
lease ran out, and each reclaim charged every job in it a crash. Now each payload is decoded on its own
and only the undecodable job fails (dead at once, with an error that says why)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import psycopg
from pgq_client import enqueue_many
from worker_support import job_rows, prepare, ready, scalar, wait_for

POISON = '{"n": 1e4300}'


def test_one_undecodable_payload_among_40_jobs_fails_alone_and_its_batch_mates_run_once_without_a_crash(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url, lease="2 seconds", max_crashes=3)
    with psycopg.connect(db_url, autocommit=True) as conn:  # the poison is the 6th in line: in the first claim
        ordinary = enqueue_many(conn, "w", [{"n": i, "sleep": 0.05} for i in range(5)])
        poison = int(conn.execute("select q.enqueue('w', %s::jsonb)", (POISON,)).fetchone()[0])
        ordinary += enqueue_many(conn, "w", [{"n": i, "sleep": 0.05} for i in range(5, 40)])
    worker = spawn(db_url, "-q", "w", "--concurrency", "10", "--log-json")
    ready(db_url)
    everything = set(ordinary) | {poison}
    wait_for(lambda: {i for i, j in job_rows(db_url).items() if j["state"] in ("completed", "dead")} >= everything,
             20, "every job to finish")
    jobs = job_rows(db_url)
    assert {jobs[i]["state"] for i in ordinary} == {"completed"}
    assert [i for i in ordinary if jobs[i]["crashes"] or jobs[i]["attempt"] != 1] == [], "no crash budget spent"
    runs = scalar(db_url, "select count(*) from test_runs where phase = 'start' and job_id = any(%s)", (ordinary,))
    assert runs == 40, "every ordinary job ran exactly once"
    bad = jobs[poison]
    assert (bad["state"], bad["crashes"], bad["attempt"]) == ("dead", 0, 1), "failed once, as invalid, not crashed"
    error = bad["errors"][-1]["error"]
    assert "invalid payload" in error and "cannot decode" in error and "4300 digits" in error
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    output = worker.output()
    assert "job_dead" in output and "db_error" not in output


def test_the_async_worker_and_run_jobs_also_fail_only_the_undecodable_job(db_url: str) -> None:
    import asyncio
    import time

    from pgq_client import AsyncWorker
    from pgq_client.testing import run_jobs

    prepare(db_url)
    seen: list[Any] = []

    async def handler(payload: Any) -> None:
        seen.append(payload)

    def add_batch() -> tuple[list[int], int]:
        with psycopg.connect(db_url, autocommit=True) as conn:
            ids = enqueue_many(conn, "w", [{"n": i} for i in range(3)])
            bad = int(conn.execute("select q.enqueue('w', %s::jsonb)", (POISON,)).fetchone()[0])
            return ids + enqueue_many(conn, "w", [{"n": i} for i in range(3, 6)]), bad

    ordinary, poison = add_batch()

    async def main() -> None:
        worker = AsyncWorker(handler, "w", database_url=db_url, concurrency=4, batch_size=10)
        task = asyncio.create_task(worker.run(install_signal_handlers=False))
        deadline = time.monotonic() + 20
        while job_rows(db_url)[poison]["state"] != "dead" or len(seen) < 6:
            assert time.monotonic() < deadline, "the async worker did not finish the batch"
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(task, 15)

    asyncio.run(main())
    jobs = job_rows(db_url)
    assert sorted(p["n"] for p in seen) == list(range(6))
    assert {jobs[i]["state"] for i in ordinary} == {"completed"} and jobs[poison]["crashes"] == 0
    assert "cannot decode" in jobs[poison]["errors"][-1]["error"]

    ordinary, poison = add_batch()
    seen.clear()
    with psycopg.connect(db_url, autocommit=True) as conn:  # the test helper runs jobs inline, the same way
        runs = run_jobs(conn, seen.append, "w")
    assert sorted(p["n"] for p in seen) == list(range(6)) and len(runs) == 7
    assert job_rows(db_url)[poison]["state"] == "dead"
