"""An App whose settings are all declared at the App level but one task's: `pgq worker settings_test_app:app`.

``inherits`` has no settings of its own (it gets the App's concurrency 4, batch_size 3, lease 42 s);
``own`` sets its own (concurrency 2, batch_size 1, lease 20 s). Each run is logged in
settings_runs (queue, phase start/end, clock_timestamp()) on a connection of the handler's
own, outside the worker's pool, so a test can count from outside how many ran at once.
"""

from __future__ import annotations

import time
from typing import Any

from pgq_client import App, JobContext
from worker_test_handlers import _conn

RUNS_TABLE = """
create table if not exists settings_runs (
  job_id bigint not null,
  queue text not null,
  phase text not null,
  at timestamptz not null default clock_timestamp()
)
"""

app = App(concurrency=4, batch_size=3, lease=42, poll_interval=0.2)


def _log(job: JobContext, phase: str) -> None:
    _conn().execute("insert into settings_runs (job_id, queue, phase) values (%s, %s, %s)", (job.id, job.queue, phase))


def _run(payload: dict[str, Any], job: JobContext) -> None:
    _log(job, "start")
    time.sleep(payload.get("ms", 300) / 1000)
    _log(job, "end")


@app.task(queue="inherits")
def inherits(payload: dict[str, Any], job: JobContext) -> None:
    _run(payload, job)


@app.task(queue="own", concurrency=2, batch_size=1, lease=20)
def own(payload: dict[str, Any], job: JobContext) -> None:
    _run(payload, job)
