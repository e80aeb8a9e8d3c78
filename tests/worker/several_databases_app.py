"""Handlers and an App for the several-databases tests (``pgq worker several_databases_app:...``).

Each run is logged in the job's own database (``job.connection()``, the pool of the
worker that serves that database), so a test counts per database what ran there,
independently of pgq's own books.
"""

from __future__ import annotations

import os
from typing import Any

import pgq_client
from pgq_client import JobContext

RUNS = """
create table if not exists several_runs (
  n integer not null,
  queue text not null,
  pid integer not null,
  at timestamptz not null default clock_timestamp()
)
"""


def record(payload: dict[str, Any], job: JobContext) -> None:
    """Sleep as the payload says, then log the run in the job's database (the handler fails if it cannot:
    the job is then retried, as a handler whose database went away would be)."""
    if "slot" in payload:  # a scheduled run: the schedule's existence is what the tests look at
        return
    if payload.get("sleep"):
        job.wait(payload["sleep"])
    with job.connection() as conn:
        conn.execute("insert into several_runs (n, queue, pid) values (%s, %s, %s)",
                     (payload["n"], job.queue, os.getpid()))


# The map form: queue "orders" lives in one database, "invoices" in another (URLs from the environment).
app = pgq_client.App(databases={"orders": os.environ.get("ORDERS_URL", "dbname=orders"),
                                "invoices": os.environ.get("INVOICES_URL", "dbname=invoices")},
                     concurrency=2)


@app.periodic(every=3600, name="hourly-orders")
@app.task(queue="orders")
def orders(payload: dict[str, Any], job: JobContext) -> None:
    record(payload, job)


@app.task(queue="invoices")
def invoices(payload: dict[str, Any], job: JobContext) -> None:
    record(payload, job)
