#!/usr/bin/env python3
"""A real pgq worker for the flow-control chaos test (test_flow_control_chaos.py).

    DATABASE_URL=... flow_worker.py QUEUE [QUEUE ...]

Runs pgq_client.Worker on the queues; the job body writes a ledger row
(job, attempt, queue, key, claimed_at = lease_until - lease, started_at,
then finished_at) in its own transactions on its own connection, and sleeps
payload["ms"] in between. SIGKILL it at will: the ledger shows what ran.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

import psycopg
from pgq_client import JobContext, Worker

LEASE = 4.0
_local = threading.local()
START = (
    "insert into flow_ledger (job_id, attempt, queue, key, seq, pid, claimed_at, started_at)"
    " values (%s, %s, %s, %s, %s, %s, %s - make_interval(secs => %s), clock_timestamp()) returning id"
)
DONE = "update flow_ledger set finished_at = clock_timestamp() where id = %s"


def _conn() -> psycopg.Connection[Any]:
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True, application_name="flow-ledger")
        _local.conn = conn
    return conn


def _write(query: str, params: tuple[Any, ...]) -> Any:
    for _ in range(50):
        try:
            cur = _conn().execute(query, params)
            return cur.fetchone()[0] if cur.description else None
        except psycopg.OperationalError:
            _local.conn = None
            time.sleep(0.1)
    raise RuntimeError("ledger unreachable")


def body(payload: dict[str, Any], job: JobContext) -> None:
    row = _write(START, (job.id, job.attempt, job.queue, payload.get("key"), payload.get("seq"), os.getpid(),
                         job.lease_until, LEASE))
    time.sleep(payload.get("ms", 10) / 1000)
    _write(DONE, (row,))


if __name__ == "__main__":
    Worker(body, sys.argv[1:], concurrency=4, lease=LEASE, poll_interval=1.0, name=f"flow-{os.getpid()}").run()
