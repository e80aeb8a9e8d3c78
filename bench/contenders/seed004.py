"""The Node benchmark's hand-written worker (design.md#the-node-benchmark): claim-delete inside a
transaction that stays open while the job runs.

`BEGIN; DELETE FROM jobs WHERE id IN (SELECT id ... FOR UPDATE SKIP LOCKED LIMIT k)
RETURNING id, payload;` run the handler(s); `COMMIT`. One polling loop and
connection per worker, as in the seed; batch 1 and 50. Enqueue is a plain
INSERT with the seed's statement-level NOTIFY trigger on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from .. import databases
from ..cluster import Server
from .base import Loop, WorkResult, listen_loops, paced, payload, run_inflight, run_threads

QUEUE = "emails"
CLAIM = (
    "DELETE FROM jobs WHERE id IN ("
    " SELECT id FROM jobs WHERE queue = %s AND run_at <= now()"
    " ORDER BY run_at, id FOR UPDATE SKIP LOCKED LIMIT %s)"
    " RETURNING id, payload"
)
INSERT = "INSERT INTO jobs (queue, payload) VALUES (%s, %s)"
BULK = "INSERT INTO jobs (queue, payload) SELECT %s, value FROM jsonb_array_elements(%s)"


class Seed004:
    name = "hand-written SKIP LOCKED (seed 004)"

    def __init__(self, server: Server, dbname: str = "bench_seed004") -> None:
        self.server = server
        self.dbname = dbname
        self.dsn = ""

    def setup(self) -> None:
        self.dsn = databases.new_raw(self.server, self.dbname, "seed004.sql")

    def connect(self, autocommit: bool = True) -> psycopg.Connection[Any]:
        return psycopg.connect(self.dsn, autocommit=autocommit)

    def load(self, n: int) -> None:
        """Empty the queue, then n waiting jobs, vacuumed (set-up, not timed)."""
        with self.connect() as conn:
            conn.execute("truncate jobs")
            conn.execute(
                f"INSERT INTO jobs (queue, payload) SELECT %s, {databases.PAYLOAD_SQL} FROM generate_series(1, %s) g",
                (QUEUE, n),
            )
            conn.execute("vacuum (analyze) jobs")

    def pending(self) -> int:
        with self.connect() as conn:
            return int(conn.execute("select count(*) from jobs").fetchone()[0])

    def enqueue_one(self, n: int) -> float:
        with self.connect() as conn:
            t0 = time.perf_counter()
            for i in range(n):
                conn.execute(INSERT, (QUEUE, Jsonb(payload(i))))
            return time.perf_counter() - t0

    def enqueue_inflight(self, n: int, inflight: int) -> float:
        return run_inflight(n, inflight, self.connect, lambda conn, i: conn.execute(INSERT, (QUEUE, Jsonb(payload(i)))))

    def enqueue_bulk(self, n: int, per_call: int) -> float:
        with self.connect() as conn:
            t0 = time.perf_counter()
            for start in range(0, n, per_call):
                conn.execute(BULK, (QUEUE, Jsonb([payload(i) for i in range(start, min(n, start + per_call))])))
            return time.perf_counter() - t0

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult:
        def make(i: int) -> Loop:
            conn = self.connect(autocommit=False)

            def loop(stop: threading.Event, counts: list[int], i: int) -> None:
                with conn:
                    while not stop.is_set():
                        with conn.transaction():
                            rows = conn.execute(CLAIM, (QUEUE, batch)).fetchall()
                            if not rows:
                                return
                            for _row in rows:
                                if sleep_s:
                                    time.sleep(sleep_s)
                        counts[i] += len(rows)

            return loop

        return run_threads(workers, make, cap_s)

    def enqueue_timed(self, n: int, per_second: float) -> None:
        with self.connect() as conn:
            paced(n, per_second, lambda i, t: conn.execute(INSERT, (QUEUE, Jsonb(payload(i, t)))))

    on_job: Callable[[dict[str, Any]], None] = staticmethod(lambda payload: None)

    def serve(self, workers: int, until: Callable[[], bool], timeout_s: float) -> None:
        """The seed's idle workers: a LISTEN connection wakes every waiting loop; 1 s poll fallback."""

        def claim_one(conn: psycopg.Connection[Any]) -> list[dict[str, Any]]:
            return [job for _id, job in conn.execute(CLAIM, (QUEUE, 1)).fetchall()]

        listen_loops(self.connect, "jobs", claim_one, lambda job: self.on_job(job), workers, until, timeout_s)

    def close(self) -> None:
        self.server.drop(self.dbname)
