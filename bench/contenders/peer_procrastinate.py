"""procrastinate (latest PyPI release) at its fastest documented settings.

psycopg connector (async pool), an async no-op task, the worker with
`concurrency` = workers, `listen_notify=True`, `delete_jobs="always"` (no
finished rows kept). procrastinate fetches one job per query: no batch knob.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import procrastinate
import psycopg

from .. import databases
from ..cluster import Server
from .base import WorkResult, payload

QUEUE = "bench"


class Procrastinate:
    name = "procrastinate"
    batches = (1,)

    def __init__(self, server: Server, dbname: str = "bench_procrastinate") -> None:
        self.server = server
        self.dbname = dbname
        self.dsn = ""
        self.sleep_s = 0.0
        self.on_job: Callable[[dict[str, Any]], None] | None = None

    def batch_label(self, batch: int) -> str:
        return "one job per fetch"

    def app(self, pool_size: int = 4) -> procrastinate.App:
        app = procrastinate.App(
            connector=procrastinate.PsycopgConnector(conninfo=self.dsn, min_size=1, max_size=pool_size)
        )

        @app.task(name="noop", queue=QUEUE)
        async def noop(**kwargs: Any) -> None:
            if self.on_job is not None:
                self.on_job(kwargs)
            if self.sleep_s:
                await asyncio.sleep(self.sleep_s)

        self.task = noop
        return app

    def setup(self) -> None:
        self.dsn = self.server.recreate(self.dbname)

        async def go() -> None:
            app = self.app()
            async with app.open_async():
                await app.schema_manager.apply_schema_async()

        asyncio.run(go())

    def pending(self) -> int:
        with psycopg.connect(self.dsn) as conn:
            return int(conn.execute(
                "select count(*) from procrastinate_jobs where status in ('todo', 'doing')").fetchone()[0])

    def load(self, n: int) -> None:
        """Empty the queue, then n jobs by INSERT into its table, as defer does (set-up, not timed)."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("truncate procrastinate_jobs cascade")
            conn.execute(
                "insert into procrastinate_jobs (queue_name, task_name, args)"
                f" select %s, 'noop', {databases.PAYLOAD_SQL} from generate_series(1, %s) g",
                (QUEUE, n),
            )
            conn.execute("vacuum (analyze) procrastinate_jobs")

    def enqueue_one(self, n: int) -> float:
        async def go() -> float:
            app = self.app()
            async with app.open_async():
                t0 = time.perf_counter()
                for i in range(n):
                    await self.task.defer_async(**payload(i))
                return time.perf_counter() - t0

        return asyncio.run(go())

    def enqueue_inflight(self, n: int, inflight: int) -> float:
        async def go() -> float:
            app = self.app(pool_size=inflight)
            async with app.open_async():
                per = n // inflight

                async def one(i: int) -> None:
                    for k in range(per):
                        await self.task.defer_async(**payload(i * per + k))

                t0 = time.perf_counter()
                await asyncio.gather(*(one(i) for i in range(inflight)))
                return time.perf_counter() - t0

        return asyncio.run(go())

    def enqueue_bulk(self, n: int, per_call: int) -> float:
        async def go() -> float:
            app = self.app()
            async with app.open_async():
                t0 = time.perf_counter()
                for start in range(0, n, per_call):
                    await self.task.batch_defer_async(*(payload(i) for i in range(start, min(n, start + per_call))))
                return time.perf_counter() - t0

        return asyncio.run(go())

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult:
        self.sleep_s = sleep_s

        async def go() -> WorkResult:
            app = self.app(pool_size=workers + 2)
            async with app.open_async():
                t0 = time.perf_counter()
                capped = False
                try:
                    await asyncio.wait_for(
                        app.run_worker_async(
                            queues=[QUEUE], concurrency=workers, wait=False, listen_notify=True,
                            delete_jobs="always", install_signal_handlers=False,
                        ),
                        timeout=cap_s,
                    )
                except (asyncio.TimeoutError, TimeoutError):
                    capped = True
                elapsed = time.perf_counter() - t0
            done = expect - self.pending()
            return WorkResult(done=done, seconds=cap_s if capped else elapsed, capped=capped)

        try:
            return asyncio.run(go())
        finally:
            self.sleep_s = 0.0

    def serve(self, workers: int, until: Callable[[], bool], timeout_s: float) -> None:
        """Run a long-lived worker (waiting for jobs) until until() is true."""

        async def go() -> None:
            app = self.app(pool_size=workers + 2)
            async with app.open_async():
                task = asyncio.create_task(app.run_worker_async(
                    queues=[QUEUE], concurrency=workers, wait=True, listen_notify=True,
                    delete_jobs="always", install_signal_handlers=False,
                ))
                deadline = time.monotonic() + timeout_s
                while not until() and time.monotonic() < deadline and not task.done():
                    await asyncio.sleep(0.05)
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass

        asyncio.run(go())

    def enqueue_timed(self, n: int, per_second: float) -> None:
        async def go() -> None:
            app = self.app()
            async with app.open_async():
                start = time.perf_counter()
                for i in range(n):
                    delay = start + i / per_second - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    await self.task.defer_async(**payload(i, time.time()))

        asyncio.run(go())

    def close(self) -> None:
        self.server.drop(self.dbname)
