"""15. Cancel reaches the running handler: the time from `q.cancel` returning to the handler seeing it.

The goal (design.md#results-and-dependencies): p50 ≤ 50 ms. `q.cancel` of a running job sends NOTIFY
pgq_cancel_<session key> to the worker session holding the claim; the Python worker, which LISTENs
on its key's channel, heartbeats that job at once (the database's answer decides), then sets the
thread handler's stop flag (its `job.wait()` returns) or cancels the async handler's task. Without
it a handler learns it at its next heartbeat: lease/3, 20 s at the 60 s lease used here.

One pgq_client.Worker (threads) and one AsyncWorker on a database at head, lease 60 s; each job's
handler waits (`job.wait(30)` / `asyncio.sleep(30)`) until told to stop; the bench cancels it from
its own connection as soon as the handler started and times q.cancel's return to the handler's
wake-up (one clock, one process).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import psycopg
from pgq_client import AsyncWorker, JobContext, Worker

from .. import databases
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, percentile

DB = "bench_cancel"


def _thread_runs(dsn: str, n: int) -> list[float]:
    started = threading.Event()
    woke: dict[int, float] = {}
    current: dict[str, int] = {}

    def handler(payload: Any, job: JobContext) -> None:
        current["id"] = job.id
        started.set()
        job.wait(30)
        woke[job.id] = time.perf_counter()

    worker = Worker(handler, "cancel_thread", database_url=dsn, concurrency=2)
    worker.start()
    seconds: list[float] = []
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for _ in range(n):
                started.clear()
                job_id = conn.execute("select q.enqueue('cancel_thread', '{}')").fetchone()[0]
                assert started.wait(30), "the handler did not start"
                assert current["id"] == job_id
                asked = time.perf_counter()
                assert conn.execute("select q.cancel(%s)", (job_id,)).fetchone()[0]
                deadline = time.monotonic() + 30
                while job_id not in woke:
                    assert time.monotonic() < deadline, "the handler was not told"
                    time.sleep(0.0005)
                seconds.append(woke[job_id] - asked)
    finally:
        worker.stop()
        worker.join(15)
    return seconds


async def _async_runs(dsn: str, n: int) -> list[float]:
    started = asyncio.Event()
    woke: dict[int, float] = {}

    async def handler(payload: Any, job: JobContext) -> None:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            woke[job.id] = time.perf_counter()
            raise

    worker = AsyncWorker(handler, "cancel_async", database_url=dsn, concurrency=2)
    runner = asyncio.create_task(worker.run(install_signal_handlers=False))
    seconds: list[float] = []
    try:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            for _ in range(n):
                started.clear()
                job_id = (await (await conn.execute("select q.enqueue('cancel_async', '{}')")).fetchone())[0]
                await asyncio.wait_for(started.wait(), 30)
                asked = time.perf_counter()
                assert (await (await conn.execute("select q.cancel(%s)", (job_id,))).fetchone())[0]
                deadline = time.monotonic() + 30
                while job_id not in woke:
                    assert time.monotonic() < deadline, "the handler was not told"
                    await asyncio.sleep(0.0005)
                seconds.append(woke[job_id] - asked)
    finally:
        worker.stop()
        await asyncio.wait_for(runner, 15)
    return seconds


def run(ctx: Context) -> Section:
    n = 10 if ctx.profile.name == "quick" else 100
    dsn = databases.new_pgq(ctx.server, DB)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for queue in ("cancel_thread", "cancel_async"):
                conn.execute("select q.configure(%s, lease => interval '60 seconds')", (queue,))
        times = {"thread handler (job.wait)": _thread_runs(dsn, n),
                 "async handler (CancelledError)": asyncio.run(_async_runs(dsn, n))}
        ctx.log("cancel: " + "; ".join(f"{k} p50 {median(v) * 1e3:.1f} ms" for k, v in times.items()))
    finally:
        ctx.server.drop(DB)
    rows = [[label, f"{len(t):,}", f"{median(t) * 1e3:.1f}", f"{percentile(t, 95) * 1e3:.1f}",
             f"{max(t) * 1e3:.1f}"] for label, t in times.items()]
    worst50 = max(median(t) for t in times.values())
    return Section(
        key="cancel",
        title="15. Cancel reaches the running handler",
        method=(f"One Worker and one AsyncWorker, lease 60 s (the next heartbeat 20 s away); {n} jobs each, "
                "cancelled by q.cancel from the bench's own connection once the handler started; the time from "
                "q.cancel's return to the handler's wake-up, one process, one clock."),
        tables=[Table(caption="q.cancel to the handler, milliseconds",
                      headers=["handler", "cancels", "p50", "p95", "max"], rows=rows)],
        targets=[Target("cancel reaches the running handler: p50 ≤ 50 ms", worst50 <= 0.050,
                        f"p50 {worst50 * 1e3:.1f} ms (the slower of the two handlers)")],
        data={"seconds": times},
    )
