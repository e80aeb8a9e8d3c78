#!/usr/bin/env python3
"""`make demo`: enqueue a few thousand jobs and drain them with pgq's Worker in several processes.

Each process runs ``pgq_client.Worker`` (the same runtime as ``pgq worker``):
batched claims woken by NOTIFY, completes pipelined with the next claim,
heartbeats, the reaper's turn. One job in fifty fails on its first attempt to
show the retry path (the queue's backoff is shortened for the demo). A progress
bar follows the queue while it drains; then SIGTERM stops the workers
gracefully and the script prints what happened.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import signal
import time
from typing import Any

import psycopg
from pgq_client import JobContext, Worker, enqueue_many, stats
from pgq_client.cli._tables import stats_table
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

QUEUE = "demo"
JOBS = 20000
PROCESSES = 3
CONCURRENCY = 8


def handle(payload: dict[str, Any], job: JobContext) -> None:
    """The demo's job: nothing, except that every fiftieth fails its first attempt."""
    if payload["n"] % 50 == 0 and job.attempt == 1:
        raise RuntimeError(f"demo: job {payload['n']} fails once")


def work(url: str) -> None:
    logging.getLogger("pgq").setLevel(logging.ERROR)  # the failures are on purpose; the summary counts them
    Worker(handle, QUEUE, database_url=url, concurrency=CONCURRENCY).run()


def remaining(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    row = next((r for r in stats(conn) if r.queue == QUEUE), None)
    return (0, 0) if row is None else (row.waiting + row.scheduled + row.running, row.dead)


def main() -> None:
    console = Console()
    url = os.environ["DATABASE_URL"]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "select q.configure(%s, backoff_base => '10 milliseconds', backoff_max => '100 milliseconds',"
            " keep_completed => true)",
            (QUEUE,),
        )
        conn.execute("delete from q_data.job_history where queue_id = (select id from q_data.queue where name = %s)",
                     (QUEUE,))
        start = time.monotonic()
        for first in range(0, JOBS, 500):
            enqueue_many(conn, QUEUE, [{"n": n} for n in range(first, min(first + 500, JOBS))])
        enqueued = time.monotonic() - start
        console.print(f"enqueued {JOBS:,} jobs in {enqueued:.2f} s ({JOBS / enqueued:,.0f} jobs/s)")

        start = time.monotonic()
        procs = [mp.get_context("spawn").Process(target=work, args=(url,)) for _ in range(PROCESSES)]
        for p in procs:
            p.start()
        columns = (TextColumn("draining"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            bar = progress.add_task("drain", total=JOBS)
            left, dead = remaining(conn)
            while left > 0 and time.monotonic() - start < 120:
                progress.update(bar, completed=JOBS - left)
                time.sleep(0.1)
                left, dead = remaining(conn)
            progress.update(bar, completed=JOBS - left)
        drained = time.monotonic() - start
        for p in procs:
            os.kill(p.pid, signal.SIGTERM)  # graceful: no job is running, so they stop at once
        for p in procs:
            p.join(30)

        done, retried = conn.execute(
            "select count(*), count(*) filter (where errors is not null) from q_data.job_history h"
            " join q_data.queue qq on qq.id = h.queue_id where qq.name = %s and h.state = 'completed'",
            (QUEUE,),
        ).fetchone()
        console.print(
            f"drained {done:,} jobs with {PROCESSES} worker processes x {CONCURRENCY} threads in {drained:.2f} s"
            f" ({done / drained:,.0f} jobs/s, process start-up included)"
        )
        console.print(f"{retried} jobs failed once on purpose and completed on their retry; dead: {dead}")
        console.print(f"workers stopped: exit codes {[p.exitcode for p in procs]}")
        console.print(stats_table([r for r in stats(conn) if r.queue == QUEUE], title="queue after the demo"))
        if left or dead or done != JOBS or any(p.exitcode for p in procs):
            raise SystemExit("demo: not every job completed exactly once")


if __name__ == "__main__":
    main()
