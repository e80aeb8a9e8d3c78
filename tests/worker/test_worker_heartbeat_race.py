"""A heartbeat that ran just after a round completed its job said "lost", and the worker reported a lost
claim (a job_lost WARNING, pgq_worker_jobs_lost_total) for a job it had completed
(design.md#a-lost-claim-is-a-real-one). The order is steered deterministically in
tests/unit/test_ledger.py
(test_a_heartbeat_that_says_lost_for_a_job_completed_meanwhile_reports_no_loss); this is the reporter's
run, with real processes: jobs whose work ends around their first heartbeat."""

from __future__ import annotations

import random
import signal
from collections.abc import Callable
from typing import Any

import psycopg
from pgq_client import enqueue_many
from worker_support import job_rows, json_events, prepare, ready, scalar, wait_for


def test_jobs_finishing_as_their_heartbeat_falls_due_are_never_reported_lost(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url, lease="3 seconds")  # heartbeats every second: each job's first one falls due as it ends
    rng = random.Random(21)
    worker = spawn(db_url, "-q", "w", "--concurrency", "40", "--log-json")
    ready(db_url)
    total = 0
    for wave in range(4):
        payloads = [{"n": total + i, "sleep": rng.uniform(0.9, 1.1)} for i in range(40)]
        total += len(payloads)
        with psycopg.connect(db_url, autocommit=True) as conn:
            enqueue_many(conn, "w", payloads)
        wait_for(lambda n=total: scalar(db_url, "select count(*) from test_runs where phase = 'end'") >= n, 30,
                 f"wave {wave} to finish")
    wait_for(lambda: sum(j["state"] == "completed" for j in job_rows(db_url).values()) == total, 10,
             "every completion to be recorded")
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    events = json_events(worker.output())
    lost = [e for e in events if e.get("event") == "job_lost"]
    completed = [e for e in events if e.get("event") == "worker_stopped"]
    assert lost == [], f"{len(lost)} job(s) reported lost though every job completed: {lost[:3]}"
    assert completed and completed[0]["completed"] == total
    assert scalar(db_url, "select count(*) from test_runs where phase = 'start'") == total, "each job ran once"
