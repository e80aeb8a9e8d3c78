"""pgq from a plain script, no framework: enqueue in your own transaction, then work the jobs.

    pip install "pgq-client[worker,binary]"
    export DATABASE_URL=postgresql://app@localhost/app     # pgq installed there: pgq migrate
    python examples/plain_script.py

What it shows: a job enqueued in a transaction that commits exists with its row; one enqueued in a
transaction that rolls back never existed (no row, no job, no notification). Payloads may hold
datetime, Decimal and UUID values (pgq_client.payloads encodes them). A Worker started in the
background runs the committed jobs; the script stops it once they are done. tests/examples/ runs it.
"""

from __future__ import annotations

import os
import time
import uuid
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import psycopg
from pgq_client import JobContext, Worker, enqueue, stats

QUEUE = "example-invoices"
DATABASE_URL = os.environ["DATABASE_URL"]


def send_invoice(payload: dict[str, Any], job: JobContext) -> None:
    # The payload is decoded JSON: the datetime, Decimal and UUID arrive as strings.
    print(f"job {job.id}: invoice {payload['invoice']} for {payload['amount']} issued {payload['issued_at']}")


def place(conn: psycopg.Connection[Any], customer: str, amount: Decimal, *, fail: bool = False) -> None:
    """One transaction: the invoice row and its job, or neither."""
    try:
        with conn.transaction():
            invoice = uuid.uuid4()
            conn.execute("insert into example_invoice (id, customer, amount) values (%s, %s, %s)",
                         (invoice, customer, amount))
            enqueue(conn, QUEUE, {"invoice": invoice, "amount": amount, "issued_at": datetime.now(timezone.utc)})
            if fail:
                raise RuntimeError("card declined")
    except RuntimeError as exc:
        print(f"{customer}: rolled back ({exc}): no invoice, no job")


def main() -> None:
    with psycopg.connect(DATABASE_URL, autocommit=True) as conn:
        conn.execute("create table if not exists example_invoice"
                     " (id uuid primary key, customer text not null, amount numeric(12, 2) not null)")
        place(conn, "ada", Decimal("99.50"))
        place(conn, "bob", Decimal("12.00"), fail=True)
        place(conn, "cy", Decimal("5.25"))

        worker = Worker(send_invoice, QUEUE, concurrency=2).start()
        deadline = time.monotonic() + 30
        while worker.completed < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        worker.stop()
        worker.join()
        (queue,) = [s for s in stats(conn) if s.queue == QUEUE]
        invoices = conn.execute("select count(*) from example_invoice").fetchone()
        print(f"completed {worker.completed} jobs; {invoices[0] if invoices else 0} invoices;"
              f" {queue.waiting} waiting, {queue.running} running")


if __name__ == "__main__":
    main()
