"""Suite 1: contention. 8 real worker processes (pgq_client.Worker) drain
10,000 jobs (50,000 in `make soak`) with claims of 1 to 10 jobs; the job body writes an independent
ledger. 0 lost, 0 duplicate executions, 0 duplicate terminal writes."""

from __future__ import annotations

import os
import random
import time
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from .books import audit
from .figures import record
from .workers import Fleet

WORKERS = 8
# 10,000 in `make test` (20,000 took 112 s of a loaded 2-core machine; tests/core/test_exactly_once.py
# drains 20,000 through the SQL calls by 8 processes too); `make soak` runs 50,000.
JOBS = int(os.environ.get("PGQ_CONTENTION_JOBS", "10000"))
QUEUE = "contention"
DRAIN_LIMIT = 240.0  # seconds; a loaded 2-core machine drains this in well under a minute


def enqueue(conn: psycopg.Connection[Any], count: int) -> list[int]:
    ids: list[int] = []
    for first in range(0, count, 10_000):
        payloads = Jsonb([{"n": n} for n in range(first, min(count, first + 10_000))])
        ids += [r[0] for r in conn.execute("select q.enqueue_many(%s, %s)", (QUEUE, payloads)).fetchall()]
    return ids


def wait_drained(conn: psycopg.Connection[Any], fleet: Fleet, limit: float) -> float:
    started = time.monotonic()
    while conn.execute("select exists (select from q_data.job)").fetchone()[0]:
        assert time.monotonic() - started < limit, "the workers did not drain the queue in time"
        assert all(w.alive() for w in fleet.processes), "a worker process died"
        time.sleep(0.1)
    return time.monotonic() - started


def test_eight_worker_processes_run_every_job_with_batches_of_1_to_10_exactly_once(
    books: str, fleet: Fleet
) -> None:
    rng = random.Random(20_000)
    settings = []
    for _ in range(WORKERS):
        concurrency = rng.randint(1, 4)
        settings.append((concurrency, rng.randint(concurrency, 10)))  # claims of 1..batch_size jobs
    workers = [fleet.start(f"contention-{i}", QUEUE, concurrency=c, batch_size=b) for i, (c, b) in enumerate(settings)]
    fleet.wait_ready(workers)

    with psycopg.connect(books, autocommit=True) as conn:
        ids = enqueue(conn, JOBS)
        seconds = wait_drained(conn, fleet, DRAIN_LIMIT)
        fleet.stop_all()
        result = audit(conn, ids)

    print(result.figures(), fleet.event_counts())
    result.assert_exactly_once()
    assert fleet.completed() == JOBS, "q.complete said true exactly once per job, summed over the workers"
    assert fleet.errors() == []
    record("1", f"8 workers x {JOBS:,} jobs", jobs=JOBS, workers=WORKERS,
           settings=" ".join(f"c{c}/b{b}" for c, b in settings), seconds=round(seconds, 1),
           lost=result.lost, duplicate_executions=result.duplicate_executions,
           duplicate_terminal_writes=result.duplicate_terminal_writes, kills=0, restarts=0)
