"""pgq through the thin client (`pgq_client` functions), one thread and connection per worker.

The worker loop is the README's fast loop: claim up to `batch` on an
autocommit connection, run the jobs, then `complete_and_claim` (complete this
batch and claim the next, pipelined: one round trip, one commit). A drain
stops a worker at its first empty claim.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pgq_client
import psycopg

from .. import databases
from ..cluster import Server
from .base import Loop, WorkResult, paced, payload, run_inflight, run_threads

QUEUE = databases.QUEUE


class PgqThin:
    name = "pgq (pgq_client functions)"

    def __init__(self, server: Server, dbname: str = "bench_pgq_thin", revision: str | None = None) -> None:
        self.server = server
        self.dbname = dbname
        self.dsn = ""
        # pgq@<revision>: a database migrated to an older Alembic revision, driven by today's client.
        self.revision = revision
        if revision:
            self.name = f"{type(self).name} @{revision}"

    def setup(self) -> None:
        self.dsn = databases.new_pgq(self.server, self.dbname, self.revision)

    def connect(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.dsn, autocommit=True)

    def load(self, n: int) -> None:
        """Empty the queue, then n waiting jobs, vacuumed (set-up, not timed)."""
        with self.connect() as conn:
            databases.execute(conn, "truncate q_data.job, q_data.job_history")
            databases.fill_pgq(conn, n, databases.PAYLOAD_SQL)
            databases.execute(conn, "vacuum (analyze) q_data.job")

    def pending(self) -> int:
        with self.connect() as conn:
            return int(databases.execute(conn, "select count(*) from q_data.job").fetchone()[0])

    def enqueue_one(self, n: int) -> float:
        with self.connect() as conn:
            t0 = time.perf_counter()
            for i in range(n):
                pgq_client.enqueue(conn, QUEUE, payload(i))
            return time.perf_counter() - t0

    def enqueue_inflight(self, n: int, inflight: int) -> float:
        return run_inflight(n, inflight, self.connect, lambda conn, i: pgq_client.enqueue(conn, QUEUE, payload(i)))

    def enqueue_bulk(self, n: int, per_call: int) -> float:
        with self.connect() as conn:
            t0 = time.perf_counter()
            for start in range(0, n, per_call):
                pgq_client.enqueue_many(conn, QUEUE, [payload(i) for i in range(start, min(n, start + per_call))])
            return time.perf_counter() - t0

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult:
        def make(i: int) -> Loop:
            conn = self.connect()

            def loop(stop: threading.Event, counts: list[int], i: int) -> None:
                with conn:
                    # The client's fast loop: each round completes the last
                    # batch and claims the next in one round trip and commit.
                    jobs = pgq_client.claim(conn, QUEUE, batch)
                    while jobs and not stop.is_set():
                        for _job in jobs:
                            if sleep_s:
                                time.sleep(sleep_s)
                        done, jobs = pgq_client.complete_and_claim(conn, jobs, QUEUE, batch)
                        counts[i] += len(done)

            return loop

        return run_threads(workers, make, cap_s)

    def enqueue_timed(self, n: int, per_second: float) -> None:
        with self.connect() as conn:
            paced(n, per_second, lambda i, t: pgq_client.enqueue(conn, QUEUE, payload(i, t)))

    def close(self) -> None:
        self.server.drop(self.dbname)

