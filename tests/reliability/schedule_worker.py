#!/usr/bin/env python3
"""A real pgq worker process for the schedule chaos suite: a pgq_client.App
whose task is fed by schedules declared in code (synced when the worker
starts), and whose handler writes an independent ledger of what it ran.

    DATABASE_URL=... schedule_worker.py --name NAME [--ticks 200] [--crons 6]

Declares ``--ticks`` schedules ``every 1 second`` (tick-000 ...) with catch_up
'all' and ``--crons`` schedules ``* * * * *`` in several time zones (catch_up
'latest'), all into queue ``sched``. The handler inserts (job id, schedule,
slot, pid) into rel_sched.seen on its own connection (retrying while the
database is away): that table has no unique rule, so it shows every
execution, including re-runs after a kill.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import threading
import time
from typing import Any

import pgq_client
import psycopg
from pgq_client import JobContext
from pgq_client.worker import events as ev

_local = threading.local()
SEEN = "insert into rel_sched.seen (job_id, schedule, slot, pid) values (%s, %s, %s, %s)"
RETRY_FOR = 90.0
ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham")


def _conn() -> psycopg.Connection[Any]:
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True, connect_timeout=5,
                               application_name="rel-sched-ledger")
        _local.conn = conn
    return conn


def build(ticks: int, crons: int) -> pgq_client.App:
    app = pgq_client.App()

    @app.task(queue="sched", concurrency=4)
    def run(payload: dict[str, Any], job: JobContext) -> None:
        deadline = time.monotonic() + RETRY_FOR
        while True:
            try:
                _conn().execute(SEEN, (job.id, payload["schedule"], payload["slot"], os.getpid()))
                return
            except psycopg.OperationalError:
                _local.conn = None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    for i in range(ticks):
        app.periodic(every=1, name=f"tick-{i:03d}", payload={"i": i}, catch_up="all")(run)
    for i in range(crons):
        app.periodic(cron="* * * * *", name=f"cron-{i:02d}", timezone=ZONES[i % len(ZONES)])(run)
    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--ticks", type=int, default=200)
    parser.add_argument("--crons", type=int, default=6)
    args = parser.parse_args()
    ev.configure(logging.INFO, json_lines=True)
    worker = build(args.ticks, args.crons).worker(name=args.name, poll_interval=1.0)
    started = time.monotonic()
    worker.run()  # type: ignore[union-attr]  (a sync App: a threaded Worker)
    print(json.dumps({"pid": os.getpid(), "name": args.name, "seconds": round(time.monotonic() - started, 3)}),
          flush=True)


if __name__ == "__main__":
    main()
