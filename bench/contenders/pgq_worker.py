"""pgq through its worker runtime, `pgq_client.Worker`, with its default settings.

Default settings: LISTEN + 1 s poll, claims sized by the worker (batch_size
None = up to the free slots plus a prefetch), reaper turn every second. Only
the concurrency (= workers) is set, and batch_size where a table asks for a
fixed batch. The clock starts when a paused queue is resumed, so the worker's
start-up (pool, listener) is not timed, as the threads of the others connect
before their clock starts too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
from pgq_client import Worker

from .. import databases
from .base import WorkResult
from .pgq_thin import PgqThin

QUEUE = databases.QUEUE
DEFAULT = 0  # batch key meaning "the Worker's default batch sizing"


class PgqWorker(PgqThin):
    name = "pgq Worker (pgq_client.Worker)"
    batches = (DEFAULT, 50)  # the defaults, and a fixed batch like the others

    def __init__(self, server: Any, dbname: str = "bench_pgq_worker") -> None:
        super().__init__(server, dbname)
        self.on_job: Callable[[dict[str, Any]], None] | None = None

    def batch_label(self, batch: int) -> str:
        return "defaults (batch sized by the worker)" if batch == DEFAULT else f"batch_size {batch}"

    def _worker(self, workers: int, batch: int, sleep_s: float) -> Worker:
        def handler(payload: dict[str, Any]) -> None:
            if self.on_job is not None:
                self.on_job(payload)
            if sleep_s:
                time.sleep(sleep_s)

        return Worker(handler, QUEUE, database_url=self.dsn, concurrency=workers,
                      batch_size=None if batch == DEFAULT else batch)

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("select q.pause(%s)", (QUEUE,))
            w = self._worker(workers, batch, sleep_s).start()
            time.sleep(0.4)  # pool open, listener up, first (empty) claims done
            t0 = time.perf_counter()
            conn.execute("select q.resume(%s)", (QUEUE,))
        deadline = t0 + cap_s
        while w.completed < expect and time.perf_counter() < deadline:
            time.sleep(0.002)
        elapsed = time.perf_counter() - t0
        done = w.completed
        w.stop(now=True)
        w.join(30)
        capped = done < expect
        return WorkResult(done=done, seconds=cap_s if capped else elapsed, capped=capped)

    def serve(self, workers: int, until: Callable[[], bool], timeout_s: float) -> None:
        w = self._worker(workers, DEFAULT, 0.0).start()
        deadline = time.monotonic() + timeout_s
        while not until() and time.monotonic() < deadline:
            time.sleep(0.05)
        w.stop(now=True)
        w.join(30)
