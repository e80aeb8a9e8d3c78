"""Load for the soak suites: a steady producer that remembers every enqueue
that returned success, and helpers to watch workers' claims."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from ..workers import WorkerProcess


class Producer(threading.Thread):
    """Enqueues `total` jobs of 5-50 ms (``ms``) at `rate` jobs/s in batches, riding out database outages.

    ``committed`` holds the ids of every q.enqueue_many call that returned:
    those jobs must exist afterwards. A call that failed with the connection
    gone may or may not have committed; it is retried and counted in
    ``uncertain`` (its jobs may exist twice: they are extra, never missing).
    """

    def __init__(self, url: str, queue: str, total: int, rate: float, batch: int = 25, seed: int = 1,
                 ms: tuple[int, int] = (5, 50)) -> None:
        super().__init__(daemon=True, name="producer")
        self.url, self.queue, self.total, self.rate, self.batch, self.ms = url, queue, total, rate, batch, ms
        self.rng = random.Random(seed)
        self.committed: list[int] = []
        self.uncertain = 0
        self.failures = 0
        self.error: BaseException | None = None
        self.finished_at: float | None = None

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # noqa: BLE001 - reported by the suite
            self.error = exc

    def _run(self) -> None:
        conn: psycopg.Connection[Any] | None = None
        sent = 0
        next_at = time.monotonic()
        while sent < self.total:
            count = min(self.batch, self.total - sent)
            payloads = Jsonb([{"n": sent + i, "ms": self.rng.randint(*self.ms)} for i in range(count)])
            while True:
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=3)
                    rows = conn.execute("select q.enqueue_many(%s, %s)", (self.queue, payloads)).fetchall()
                    self.committed += [r[0] for r in rows]
                    break
                except psycopg.OperationalError:
                    self.failures += 1
                    self.uncertain += count
                    conn = None
                    time.sleep(0.2)
            sent += count
            next_at += count / self.rate
            time.sleep(max(0.0, next_at - time.monotonic()))
        self.finished_at = time.monotonic()
        if conn is not None:
            conn.close()


def held_by(conn: psycopg.Connection[Any], worker: WorkerProcess) -> list[tuple[int, Any]]:
    """(id, token) of every job claimed under the worker's liveness key (running or waiting for a handler)."""
    return conn.execute(
        """
        select j.id, j.token from q_data.job j
         where j.state = 'r' and j.owner in (
           select s.key from q_data.session s join pg_stat_activity a on a.pid = s.pid
            where a.backend_start = s.backend_start and a.application_name = %s)
        """,
        (f"pgq-listener:{worker.name}"[:63],),
    ).fetchall()


def wait_released(conn: psycopg.Connection[Any], claims: list[tuple[int, Any]], since: float, limit: float) -> float:
    """Seconds from `since` until none of these claims is current any more (reaped, or finished)."""
    ids = [c[0] for c in claims]
    tokens = [c[1] for c in claims]
    while True:
        still = conn.execute(
            "select count(*) from q_data.job j join unnest(%s::bigint[], %s::uuid[]) c(id, token)"
            " on j.id = c.id and j.token = c.token and j.state = 'r'",
            (ids, tokens),
        ).fetchone()[0]
        elapsed = time.monotonic() - since
        if still == 0 or elapsed > limit:
            return elapsed
        time.sleep(0.02)


def wait_drained(conn: psycopg.Connection[Any], limit: float, expected: int | None = None) -> float:
    """Until q_data.job is empty (and, if given, `expected` done rows exist); seconds taken."""
    started = time.monotonic()
    while True:
        busy = conn.execute("select exists (select from q_data.job)").fetchone()[0]
        if not busy and expected is not None:
            busy = conn.execute(
                "select count(distinct job_id) < %s from rel.execution where phase = 'done'", (expected,)
            ).fetchone()[0]
        if not busy:
            return time.monotonic() - started
        if time.monotonic() - started > limit:
            raise AssertionError(f"not drained after {limit} s")
        time.sleep(0.2)
