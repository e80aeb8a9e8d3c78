"""An App for the worker tests: two tasks with their own concurrency, run by `pgq worker worker_test_app:app`.

Each run is logged in test_runs (phase start/end, with clock_timestamp()), so a
test can compute how many jobs of each queue ran at once from outside.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from pgq_client import App, JobContext
from pydantic import BaseModel
from worker_test_handlers import log_run

app = App(poll_interval=0.2)
started: list[str] = []


class Thumb(BaseModel):
    n: int
    ms: int = 0


@app.on_startup
def remember_start(conn: Any) -> None:
    started.append(str(conn.execute("select current_database()").fetchone()[0]))
    logging.getLogger("worker_test_app").warning("startup hook ran")


@app.task(queue="slow", concurrency=2, payload=Thumb)
def make_thumbnail(thumb: Thumb, job: JobContext) -> None:
    log_run(job, "start")
    time.sleep(thumb.ms / 1000)
    log_run(job, "end")


@app.task(queue="fast", concurrency=3)
def ping(payload: dict[str, Any], job: JobContext) -> None:
    log_run(job, "start")
    time.sleep(payload.get("ms", 0) / 1000)
    if payload.get("fail"):
        raise ValueError(f"{payload['fail']}\nFor further information visit https://example.invalid/x")
    with job.connection() as conn:  # a pooled connection of the worker
        conn.execute("select 1")
    log_run(job, "end")
