"""5. Idle pickup latency (design.md#the-node-benchmark): 10 idle workers, jobs added at 20/s.

The producer runs in its own process and writes time.time() into each payload
just before its enqueue call; the handler subtracts it when it starts the
job. Each contender enqueues through its own API. Percentiles pool all runs.
"""

from __future__ import annotations

import json
import multiprocessing
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg

from .. import verdicts
from ..contenders import registry
from ..contenders.base import paced, payload
from ..contenders.peer_pgqueuer import Pgqueuer
from ..contenders.peer_procrastinate import Procrastinate
from ..contenders.pgq_worker import PgqWorker
from ..contenders.seed004 import Seed004
from ..context import Context
from ..model import Section, Table, Target
from ..stats import ms, percentile

WORKERS = 10


class Floor:
    """The floor: a bare LISTEN -> handler hop, no queue at all, with a worker's thread structure.

    The producer sends `NOTIFY pickup_floor, '<payload>'` in a transaction of
    its own (no table, so no WAL flush at commit); one listener thread on its
    own connection hands each notification's payload through a SimpleQueue to
    one of WORKERS handler threads, which start the "job". Whatever a queue
    adds (the enqueue's INSERT and commit, the claim) is above this line.
    """

    name = "floor: bare LISTEN -> handler hop (no queue)"
    CHANNEL = "pickup_floor"

    def __init__(self, server: Any, dbname: str = "bench_pickup_floor") -> None:
        self.server = server
        self.dbname = dbname
        self.dsn = ""
        self.on_job: Callable[[dict[str, Any]], None] = lambda payload: None

    def setup(self) -> None:
        self.dsn = self.server.recreate(self.dbname)

    def load(self, n: int) -> None:
        return None

    def enqueue_timed(self, n: int, per_second: float) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            paced(n, per_second, lambda i, t: conn.execute("select pg_notify(%s, %s)",
                                                           (self.CHANNEL, json.dumps(payload(i, t)))))

    def serve(self, workers: int, until: Callable[[], bool], timeout_s: float) -> None:
        jobs: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        stop = threading.Event()

        def listener() -> None:
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute(f"listen {self.CHANNEL}")
                while not stop.is_set():
                    for note in conn.notifies(timeout=0.5):
                        jobs.put(json.loads(note.payload))

        def handler() -> None:
            while (job := jobs.get()) is not None:
                self.on_job(job)

        threads = [threading.Thread(target=listener, daemon=True)]
        threads += [threading.Thread(target=handler, daemon=True) for _ in range(workers)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + timeout_s
        while not until() and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        for _ in range(workers):
            jobs.put(None)
        for t in threads:
            t.join(10)

    def close(self) -> None:
        self.server.drop(self.dbname)


def _produce(cls: type, dsn: str, n: int, per_second: float) -> None:
    c = cls(None)
    c.dsn = dsn
    c.enqueue_timed(n, per_second)


def run(ctx: Context) -> Section:
    p = ctx.profile
    contenders: list[Any] = [PgqWorker(ctx.server), Seed004(ctx.server), Procrastinate(ctx.server),
                             Pgqueuer(ctx.server), Floor(ctx.server)]
    more, skipped = registry.others(ctx.server)
    contenders += more
    lat: dict[str, list[float]] = {c.name: [] for c in contenders}
    spawn = multiprocessing.get_context("spawn")
    for c in contenders:
        c.setup()
    try:
        for rep in range(p.reps):
            for c in ctx.order(contenders, rep):
                c.load(0)
                got: list[float] = []
                c.on_job = lambda payload, got=got: got.append(time.time() - payload["t"])
                producer = spawn.Process(target=_produce, args=(type(c), c.dsn, p.pickup_jobs, p.pickup_rate))

                def until(got: list[float] = got, producer: Any = producer) -> bool:
                    if not producer.is_alive() and producer.exitcode is None:
                        producer.start()  # workers are idle: start adding jobs
                    return len(got) >= p.pickup_jobs

                started = time.monotonic()

                def gate(until: Any = until, started: float = started) -> bool:
                    # idle first, so every worker is waiting
                    return time.monotonic() - started > p.pickup_idle_s and until()

                c.serve(WORKERS, gate, timeout_s=p.pickup_idle_s + p.pickup_jobs / p.pickup_rate + 15)
                producer.join(30)
                lat[c.name] += got
                ctx.log(f"pickup: run {rep + 1} {c.name}: {len(got)} jobs")
    finally:
        for c in contenders:
            c.close()
    rows = []
    for c in contenders:
        v = lat[c.name]
        rows.append([c.name, str(len(v)), ms(percentile(v, 50)), ms(percentile(v, 95)), ms(percentile(v, 99))])
    w = lat[PgqWorker.name]
    total = p.pickup_jobs * p.reps
    sec = Section(
        key="pickup",
        title="5. Idle pickup latency",
        method=(
            f"{WORKERS} idle workers; {p.pickup_jobs} jobs per run added at {p.pickup_rate:g}/s by a separate "
            f"process, {p.reps} runs, percentiles over all {total} jobs. Latency = from just before the "
            "enqueue call to the handler starting. pgq: `Worker(concurrency=10)` with defaults (LISTEN, "
            "1 s poll). Seed 004: its loops, each on its own connection, woken all at once by one LISTEN "
            "connection (1 s poll fallback). procrastinate: `concurrency=10`, `listen_notify=True`. "
            "pgqueuer: one QueueManager (LISTEN built in), batch_size 10. "
            "pgmq: its insert notifications on (throttle 0 ms), loops woken by one LISTEN connection, read 1 + "
            "delete. pg-boss: `useListenNotify`, queue `notify: true`, `localConcurrency: 10`, batchSize 1. "
            "BullMQ: Worker `concurrency: 10`. Node contenders time the handler start in Node (the pipe to the "
            "runner is not counted). Floor: no queue, a bare `NOTIFY` -> one listener thread -> 10 handler "
            "threads (a SimpleQueue between them), the thread structure of pgq's worker, to show what the "
            "machine's wake-ups cost by themselves."
        ),
        tables=[Table(caption="pickup latency", headers=["contender", "jobs", "p50", "p95", "p99"], rows=rows)],
        seed=(
            "Seed 004: SKIP LOCKED + NOTIFY trigger 1.71 / 2.54 / 19.01 ms (p50/p95/p99); pg-boss with notify "
            "3.34 / 6.23 / 14.90 ms; BullMQ on Redis 1.25 / 2.11 / 2.80 ms. Issue 4: the hand-written queue "
            "woke all 10 idle workers per job and measured 3.8 ms p50 on our machines."
        ),
        notes=skipped,
        data={"latencies_s": lat},
    )
    sec.targets.append(Target(name="idle pickup p50 ≤ 2 ms", holds=bool(w) and percentile(w, 50) <= 0.002,
                              detail=f"{ms(percentile(w, 50))} ({len(w)} of {total} jobs seen)"))
    sec.targets.append(Target(name="idle pickup p99 ≤ 20 ms", holds=bool(w) and percentile(w, 99) <= 0.020,
                              detail=ms(percentile(w, 99))))
    floor = lat[Floor.name]
    if w and floor:
        gap = percentile(w, 50) - percentile(floor, 50)
        sec.targets.append(Target(name="idle pickup p50 within 0.3 ms of the floor (bare LISTEN -> handler)",
                                  holds=gap <= 0.0003,
                                  detail=f"{gap * 1000:+.2f} ms ({ms(percentile(w, 50))} vs floor "
                                         f"{ms(percentile(floor, 50))})"))
    sec.targets += _versus_others(w, lat)
    return sec


def _versus_others(w: list[float], lat: dict[str, list[float]]) -> list[Target]:
    """Ahead of pg-boss, BullMQ on PostgreSQL and pgmq; within 1.2x of BullMQ on Redis
    (design.md#what-the-benchmarks-hold-pgq-to)."""
    out: list[Target] = []
    for other, within in (("pgmq (SQL-only install)", 1.0), ("pg-boss", 1.0), ("BullMQ on PostgreSQL", 1.0),
                          ("BullMQ on Redis", 1.2)):
        if other not in lat:
            continue
        for q in (50, 99):
            ours = percentile(w, q) if w else None
            theirs = percentile(lat[other], q) if lat[other] else None
            what = "within 1.2x of" if within > 1 else "ahead of"
            out.append(verdicts.ahead(f"idle pickup p{q}: pgq Worker {what} {other}", ("pgq", ours),
                                      (other, theirs), higher_is_better=False, within=within, fmt=ms))
    return out
