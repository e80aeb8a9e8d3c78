#!/usr/bin/env python3
"""`make demo`: enqueue a few thousand jobs and drain them with several workers.

Each worker is a separate process with its own connection, claiming in
batches with q.claim and finishing with q.complete_many; one job in fifty
fails once to show the retry path. Prints what happened.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from typing import Any

import psycopg

from pgq_client import claim, complete_many, enqueue_many, fail, reap, stats

QUEUE = "demo"
JOBS = 5000
WORKERS = 4
BATCH = 50


def work(url: str, done: Any) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        idle_since = time.monotonic()
        while time.monotonic() - idle_since < 2.0:
            jobs = claim(conn, QUEUE, BATCH)
            if not jobs:
                reap(conn)
                time.sleep(0.05)
                continue
            idle_since = time.monotonic()
            ok = []
            for job in jobs:
                if job.payload["n"] % 50 == 0 and job.attempt == 1:
                    fail(conn, job.id, job.token, "demo: every fiftieth job fails once", retry_in=None)
                else:
                    ok.append(job)
            with done.get_lock():
                done.value += len(complete_many(conn, ok))


def main() -> None:
    url = os.environ["DATABASE_URL"]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.configure(%s, backoff_base => '10 milliseconds', backoff_max => '100 milliseconds')", (QUEUE,))
        start = time.monotonic()
        for first in range(0, JOBS, 500):
            enqueue_many(conn, QUEUE, [{"n": n} for n in range(first, min(first + 500, JOBS))])
        enqueued = time.monotonic() - start
        print(f"enqueued {JOBS} jobs in {enqueued:.2f} s ({JOBS / enqueued:,.0f} jobs/s)")

        done = mp.Value("i", 0)
        start = time.monotonic()
        procs = [mp.Process(target=work, args=(url, done)) for _ in range(WORKERS)]
        for p in procs:
            p.start()
        while any(p.is_alive() for p in procs) and done.value < JOBS:
            time.sleep(0.2)
            print(f"\r  completed {done.value:>6} / {JOBS}", end="", flush=True)
        drained = time.monotonic() - start
        for p in procs:
            p.join()
        print(f"\ndrained {done.value} jobs with {WORKERS} workers in {drained:.2f} s ({done.value / drained:,.0f} jobs/s)")
        for row in stats(conn):
            if row.queue == QUEUE:
                print(f"queue {row.queue}: waiting={row.waiting} scheduled={row.scheduled} running={row.running} dead={row.dead}")


if __name__ == "__main__":
    main()
