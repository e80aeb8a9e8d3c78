"""A handler's exception text could wedge the Worker (design.md#one-job-hurts-only-itself). A message
with a NUL or a lone surrogate was refused by psycopg before it was sent, and the round carrying it
(with every other outcome and release in it) was retried forever; an exception whose __str__ raises
killed the handler thread. Now error text is cleaned before it is sent (NUL as \\x00, a lone surrogate
as \\udcXX) and a broken __str__ falls back to the exception's type name."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import psycopg
from pgq_client import enqueue, enqueue_many
from worker_support import job_rows, prepare, ready, scalar, wait_for

HANDLER = "worker_test_handlers:raise_hostile"


def last_error(job: dict[str, Any]) -> str:
    return str(job["errors"][-1]["error"]) if job["errors"] else ""


def finished(url: str, count: int) -> bool:
    return sum(j["state"] in ("completed", "dead") for j in job_rows(url).values()) >= count


def test_exception_texts_with_nul_and_lone_surrogates_are_recorded_cleaned_and_the_worker_stays_healthy(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url, max_attempts=1)
    kinds = ["nul", "surrogate", "both"]
    with psycopg.connect(db_url, autocommit=True) as conn:
        ids = enqueue_many(conn, "w", [{"n": i, "raise": kinds[i % 3]} for i in range(10)])
    worker = spawn(db_url, "-q", "w", "--concurrency", "4", handler=HANDLER)
    ready(db_url)
    wait_for(lambda: finished(db_url, 10), 20, "all 10 failures to be recorded")
    jobs = job_rows(db_url)
    assert [jobs[i]["state"] for i in ids] == ["dead"] * 10, "max_attempts 1: each failure is final"
    texts = [last_error(jobs[i]) for i in ids]
    assert "RuntimeError: bad byte \\x00 in the middle" in texts[0]
    assert "RuntimeError: undecodable \\udcff\\udcfe" in texts[1]
    assert "RuntimeError: \\x00\\udc80 \\ud800" in texts[2]
    assert all("\x00" not in t for t in texts)

    # Still healthy: a later job runs and completes, then SIGTERM stops it cleanly with nothing left running.
    with psycopg.connect(db_url, autocommit=True) as conn:
        after = enqueue(conn, "w", {"n": 100})
    wait_for(lambda: job_rows(db_url)[after]["state"] == "completed", 10, "a later job to complete")
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    assert [j for j in job_rows(db_url).values() if j["state"] == "running"] == []
    assert "db_error" not in worker.output()


def test_an_exception_whose_str_raises_is_recorded_by_its_type_name_and_the_worker_runs_further_jobs(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url, max_attempts=1)
    with psycopg.connect(db_url, autocommit=True) as conn:
        broken = enqueue_many(conn, "w", [{"n": i, "raise": "unprintable"} for i in range(4)])
    worker = spawn(db_url, "-q", "w", "--concurrency", "2", handler=HANDLER)
    ready(db_url)
    wait_for(lambda: finished(db_url, 4), 15, "the 4 broken jobs to be recorded")
    with psycopg.connect(db_url, autocommit=True) as conn:  # more jobs than handler slots, after them
        later = enqueue_many(conn, "w", [{"n": 10 + i} for i in range(4)])
    wait_for(lambda: finished(db_url, 8), 15, "the later jobs to run")
    jobs = job_rows(db_url)
    assert [jobs[i]["state"] for i in broken] == ["dead"] * 4
    assert all("UnprintableError" in last_error(jobs[i]) for i in broken)
    assert [jobs[i]["state"] for i in later] == ["completed"] * 4
    assert scalar(db_url, "select count(*) from test_runs where phase = 'end'") == 4
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    output = worker.output()
    assert "job_dead" in output and "UnprintableError" in output
    assert "Traceback" not in output, "no thread died"
