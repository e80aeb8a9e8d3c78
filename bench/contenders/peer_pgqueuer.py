"""pgqueuer (latest PyPI release) at its fastest documented settings.

asyncpg driver (one connection per QueueManager, as its docs show), schema
installed with durability `balanced` (the queue table is logged, the log and
statistics tables unlogged), `batch_size` = batch, and one QueueManager
(with its own connection) per worker, all in one process, in drain mode for
drains. The entrypoint has no concurrency_limit: a limit is enforced in SQL
and cut its batches (batch 50 with limit 1 ran 10 jobs/s).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import asyncpg
import psycopg
from pgqueuer.adapters.persistence import qb
from pgqueuer.db import AsyncpgDriver, AsyncpgPoolDriver
from pgqueuer.models import Job
from pgqueuer.qm import QueueManager
from pgqueuer.queries import Queries
from pgqueuer.types import QueueExecutionMode

from ..cluster import Server
from .base import WorkResult, payload

ENTRYPOINT = "bench"


def _url(dsn: str) -> str:
    params = psycopg.conninfo.conninfo_to_dict(dsn)
    return psycopg.conninfo.make_conninfo(**params)


def _payload(i: int) -> bytes:
    return json.dumps(payload(i)).encode()


class Pgqueuer:
    name = "pgqueuer"
    batches = (1, 50)

    def __init__(self, server: Server, dbname: str = "bench_pgqueuer") -> None:
        self.server = server
        self.dbname = dbname
        self.dsn = ""
        self.on_job: Callable[[dict[str, Any]], None] | None = None

    # Set for "N in flight" runs: one QueueManager with max_concurrent_tasks = N.
    max_tasks: int | None = None

    def batch_label(self, batch: int) -> str:
        return f"batch_size {batch}"

    async def _connect(self) -> asyncpg.Connection:
        p = psycopg.conninfo.conninfo_to_dict(self.dsn)
        return await asyncpg.connect(host=p.get("host"), port=int(p.get("port", 5432)), user=p.get("user"),
                                     database=p.get("dbname"))

    async def _pool(self, size: int) -> asyncpg.Pool:
        p = psycopg.conninfo.conninfo_to_dict(self.dsn)
        return await asyncpg.create_pool(host=p.get("host"), port=int(p.get("port", 5432)), user=p.get("user"),
                                         database=p.get("dbname"), min_size=size, max_size=size)

    def setup(self) -> None:
        self.dsn = self.server.recreate(self.dbname)

        async def go() -> None:
            conn = await self._connect()
            env = qb.QueryBuilderEnvironment(settings=qb.DBSettings(durability=qb.Durability.balanced))
            await Queries(AsyncpgDriver(conn), qbe=env).install()
            await conn.close()

        asyncio.run(go())

    def pending(self) -> int:
        with psycopg.connect(self.dsn) as conn:
            return int(conn.execute("select count(*) from pgqueuer").fetchone()[0])

    def load(self, n: int) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("truncate pgqueuer")
        self.enqueue_bulk(n, 1000)
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("vacuum (analyze) pgqueuer")

    def enqueue_one(self, n: int) -> float:
        async def go() -> float:
            conn = await self._connect()
            q = Queries(AsyncpgDriver(conn))
            t0 = time.perf_counter()
            for i in range(n):
                await q.enqueue(ENTRYPOINT, _payload(i))
            elapsed = time.perf_counter() - t0
            await conn.close()
            return elapsed

        return asyncio.run(go())

    def enqueue_inflight(self, n: int, inflight: int) -> float:
        async def go() -> float:
            pool = await self._pool(inflight)
            q = Queries(AsyncpgPoolDriver(pool))
            per = n // inflight

            async def one(i: int) -> None:
                for k in range(per):
                    await q.enqueue(ENTRYPOINT, _payload(i * per + k))

            t0 = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(inflight)))
            elapsed = time.perf_counter() - t0
            await pool.close()
            return elapsed

        return asyncio.run(go())

    def enqueue_bulk(self, n: int, per_call: int) -> float:
        async def go() -> float:
            conn = await self._connect()
            q = Queries(AsyncpgDriver(conn))
            t0 = time.perf_counter()
            for start in range(0, n, per_call):
                idx = range(start, min(n, start + per_call))
                await q.enqueue([ENTRYPOINT] * len(idx), [_payload(i) for i in idx], [0] * len(idx))
            elapsed = time.perf_counter() - t0
            await conn.close()
            return elapsed

        return asyncio.run(go())

    async def _manager(self, sleep_s: float) -> tuple[QueueManager, asyncpg.Connection]:
        conn = await self._connect()
        qm = QueueManager(Queries(AsyncpgDriver(conn)))

        @qm.entrypoint(ENTRYPOINT, concurrency_limit=0)
        async def handler(job: Job) -> None:
            if self.on_job is not None and job.payload:
                self.on_job(json.loads(job.payload))
            if sleep_s:
                await asyncio.sleep(sleep_s)

        return qm, conn

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult:
        async def go() -> WorkResult:
            managers = [await self._manager(sleep_s) for _ in range(1 if self.max_tasks else workers)]
            t0 = time.perf_counter()
            capped = False
            try:
                await asyncio.wait_for(
                    asyncio.gather(*(
                        qm.run(batch_size=batch, mode=QueueExecutionMode.drain, dequeue_timeout=timedelta(seconds=1),
                               max_concurrent_tasks=self.max_tasks)
                        for qm, _ in managers
                    )),
                    timeout=cap_s,
                )
            except (asyncio.TimeoutError, TimeoutError):
                capped = True
            elapsed = time.perf_counter() - t0
            for _, conn in managers:
                if not conn.is_closed():
                    await conn.close()
            done = expect - self.pending()
            return WorkResult(done=done, seconds=cap_s if capped else elapsed, capped=capped)

        return asyncio.run(go())

    def serve(self, workers: int, until: Callable[[], bool], timeout_s: float) -> None:
        async def go() -> None:
            qm, conn = await self._manager(0.0)
            task = asyncio.create_task(qm.run(batch_size=10))
            deadline = time.monotonic() + timeout_s
            while not until() and time.monotonic() < deadline and not task.done():
                await asyncio.sleep(0.05)
            qm.shutdown.set()
            try:
                await asyncio.wait_for(task, 10)
            except (asyncio.TimeoutError, TimeoutError, Exception):
                pass
            if not conn.is_closed():
                await conn.close()

        asyncio.run(go())

    def enqueue_timed(self, n: int, per_second: float) -> None:
        async def go() -> None:
            conn = await self._connect()
            q = Queries(AsyncpgDriver(conn))
            start = time.perf_counter()
            for i in range(n):
                delay = start + i / per_second - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                await q.enqueue(ENTRYPOINT, json.dumps(payload(i, time.time())).encode())
            await conn.close()

        asyncio.run(go())

    def close(self) -> None:
        self.server.drop(self.dbname)
