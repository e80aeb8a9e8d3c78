"""pgmq, SQL-only install, driven through its SQL functions with psycopg (one thread and connection per worker).

Installed from PyPI's `pgmq` package (pinned in bench/requirements.txt), which
ships the PGMQ extension's `pgmq.sql` (the SQL-only install: no extension,
no superuser); nothing is fetched at run time. One queue made by
`pgmq.create('bench')` (a table with a primary key and a vt index, and an
archive table). The worker loop is pgmq's: `pgmq.read(queue, vt, qty)` then
`pgmq.delete(queue, msg_ids)`, two autocommit transactions per batch (issue
15's independent run). Enqueue: `pgmq.send` / `pgmq.send_batch`, without
pgmq's optional insert notifications (a row trigger that updates a throttle
table per insert); pickup turns them on (throttle 0 ms) and LISTENs, the
fastest wake-up pgmq offers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from importlib import metadata, resources
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from .. import databases
from ..cluster import Server
from .base import Loop, WorkResult, listen_loops, paced, payload, run_inflight, run_threads

QUEUE = "bench"
VT_S = 30  # visibility timeout of a read: longer than any job here
CHANNEL = f"pgmq.q_{QUEUE}.INSERT"


def sql_text() -> str | None:
    """pgmq.sql as the pinned PyPI package ships it, or None when the package is missing."""
    try:
        return resources.files("pgmq").joinpath("sql", "pgmq.sql").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return None


def sql_version() -> str:
    try:
        pkg = metadata.version("pgmq")
        ext = resources.files("pgmq").joinpath("sql", "VERSION").read_text().strip()
        return f"PyPI pgmq {pkg} (pgmq.sql of PGMQ {ext})"
    except (metadata.PackageNotFoundError, ModuleNotFoundError, FileNotFoundError):
        return "not installed"


def missing() -> str | None:
    if sql_text() is None:
        return ("PyPI's `pgmq` package (which ships the extension's pgmq.sql) is not installed in .venv-bench "
                "(bench/install-deps installs the version pinned in bench/requirements.txt)")
    return None


class Pgmq:
    name = "pgmq (SQL-only install)"
    batches = (1, 50)

    def __init__(self, server: Server | None, dbname: str = "bench_pgmq") -> None:
        self.server = server
        self.dbname = dbname
        self.dsn = ""
        self.on_job: Callable[[dict[str, Any]], None] | None = None

    def batch_label(self, batch: int) -> str:
        return f"read qty {batch} + delete"

    def connect(self, autocommit: bool = True) -> psycopg.Connection[Any]:
        return psycopg.connect(self.dsn, autocommit=autocommit)

    def setup(self) -> None:
        assert self.server is not None
        self.dsn = self.server.recreate(self.dbname)
        text = sql_text()
        if text is None:
            raise RuntimeError(missing())
        with self.connect(autocommit=False) as conn:
            conn.execute(text)
            conn.execute("select pgmq.create(%s)", (QUEUE,))

    def load(self, n: int) -> None:
        """Empty the queue, then n visible messages straight into its table, vacuumed (set-up, not timed)."""
        with self.connect() as conn:
            conn.execute("select pgmq.purge_queue(%s)", (QUEUE,))
            conn.execute(
                f"insert into pgmq.q_{QUEUE} (vt, message) select clock_timestamp(), {databases.PAYLOAD_SQL}"
                " from generate_series(1, %s) g",
                (n,),
            )
            conn.execute(f"vacuum (analyze) pgmq.q_{QUEUE}")

    def pending(self) -> int:
        with self.connect() as conn:
            return int(conn.execute(f"select count(*) from pgmq.q_{QUEUE}").fetchone()[0])

    def enqueue_one(self, n: int) -> float:
        with self.connect() as conn:
            t0 = time.perf_counter()
            for i in range(n):
                conn.execute("select pgmq.send(%s, %s)", (QUEUE, Jsonb(payload(i))))
            return time.perf_counter() - t0

    def enqueue_inflight(self, n: int, inflight: int) -> float:
        return run_inflight(n, inflight, self.connect,
                            lambda conn, i: conn.execute("select pgmq.send(%s, %s)", (QUEUE, Jsonb(payload(i)))))

    def enqueue_bulk(self, n: int, per_call: int) -> float:
        with self.connect() as conn:
            t0 = time.perf_counter()
            for start in range(0, n, per_call):
                msgs = [Jsonb(payload(i)) for i in range(start, min(n, start + per_call))]
                conn.execute("select count(*) from pgmq.send_batch(%s, %s::jsonb[])", (QUEUE, msgs))
            return time.perf_counter() - t0

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult:
        def make(i: int) -> Loop:
            conn = self.connect()

            def loop(stop: threading.Event, counts: list[int], i: int) -> None:
                with conn:
                    while not stop.is_set():
                        ids = [r[0] for r in conn.execute("select msg_id from pgmq.read(%s, %s, %s)",
                                                          (QUEUE, VT_S, batch))]
                        if not ids:
                            return
                        for _ in ids:
                            if sleep_s:
                                time.sleep(sleep_s)
                        conn.execute("select count(*) from pgmq.delete(%s, %s::bigint[])", (QUEUE, ids))
                        counts[i] += len(ids)

            return loop

        return run_threads(workers, make, cap_s)

    def enqueue_timed(self, n: int, per_second: float) -> None:
        with self.connect() as conn:
            paced(n, per_second, lambda i, t: conn.execute("select pgmq.send(%s, %s)", (QUEUE, Jsonb(payload(i, t)))))

    def serve(self, workers: int, until: Callable[[], bool], timeout_s: float) -> None:
        """Idle loops woken by pgmq's insert notifications (throttle 0 ms); read 1, run it, delete it."""
        with self.connect() as conn:
            conn.execute("select pgmq.enable_notify_insert(%s, 0)", (QUEUE,))

        def claim_one(conn: psycopg.Connection[Any]) -> list[dict[str, Any]]:
            rows = conn.execute("select msg_id, message from pgmq.read(%s, %s, 1)", (QUEUE, VT_S)).fetchall()
            for msg_id, _ in rows:
                conn.execute("select pgmq.delete(%s, %s::bigint)", (QUEUE, msg_id))
            return [m for _, m in rows]

        try:
            listen_loops(self.connect, CHANNEL, claim_one, lambda job: self.on_job and self.on_job(job),
                         workers, until, timeout_s)
        finally:
            with self.connect() as conn:
                conn.execute("select pgmq.disable_notify_insert(%s)", (QUEUE,))

    def close(self) -> None:
        if self.server is not None:
            self.server.drop(self.dbname)


def available(server: Server) -> tuple[list[Pgmq], list[str]]:
    why = missing()
    if why is not None:
        return [], [f"**Skipped: pgmq**: {why}."]
    return [Pgmq(server)], []
