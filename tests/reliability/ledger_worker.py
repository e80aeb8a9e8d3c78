#!/usr/bin/env python3
"""A real pgq worker process for the reliability suites: pgq_client.Worker
running a job body that writes the independent ledger (see books.py).

    DATABASE_URL=... ledger_worker.py --queue Q [--concurrency N] [--batch-size B]
        [--lease SECONDS] [--name NAME] [--poll-interval S]

The payload says what the body does: ``{"n": 7, "ms": 30}`` sleeps 30 ms
(``"ms_retry"``: how long on later attempts, when it differs).
The body writes ``start`` to rel.execution, sleeps, writes ``done``, each in
its own transaction on its own connection (retrying while the database is
away, so a restart loses no ledger row). Worker events go to stderr as JSON
lines; on exit (SIGTERM: graceful) one JSON line with the worker's figures
goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import threading
import time
import uuid
from typing import Any

import psycopg
from pgq_client import JobContext, Worker
from pgq_client.worker import events as ev

_local = threading.local()
LEDGER = ("insert into rel.execution (job_id, attempt, pid, phase, run) values (%s, %s, %s, %s, %s)"
          " on conflict (run, phase) do nothing")
RETRY_FOR = 90.0  # seconds a ledger write keeps trying while the database is away


def _ledger_conn() -> psycopg.Connection[Any]:
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True, connect_timeout=5,
                               application_name="rel-ledger")
        _local.conn = conn
    return conn


def write(job: JobContext, phase: str, run: uuid.UUID) -> None:
    deadline = time.monotonic() + RETRY_FOR
    while True:
        try:
            _ledger_conn().execute(LEDGER, (job.id, job.attempt, os.getpid(), phase, run))
            return
        except psycopg.OperationalError:
            _local.conn = None
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def body(payload: dict[str, Any], job: JobContext) -> None:
    run = uuid.uuid4()  # a retried ledger write of this run adds no second row (books.py)
    write(job, "start", run)
    ms = 0
    if isinstance(payload, dict):
        ms = payload.get("ms_retry", payload.get("ms", 0)) if job.attempt > 1 else payload.get("ms", 0)
    if ms:
        time.sleep(ms / 1000)
    write(job, "done", run)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queue", required=True)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--lease", type=float, default=None)
    parser.add_argument("--poll-interval", type=float, default=1.0)
    parser.add_argument("--name", default=None)
    args = parser.parse_args()

    ev.configure(logging.INFO, json_lines=True)
    worker = Worker(body, args.queue, concurrency=args.concurrency, batch_size=args.batch_size, lease=args.lease,
                    poll_interval=args.poll_interval, name=args.name)
    started = time.monotonic()
    worker.run()
    print(json.dumps({"pid": os.getpid(), "name": args.name, "completed": worker.completed,
                      "seconds": round(time.monotonic() - started, 3)}), flush=True)


if __name__ == "__main__":
    main()
