"""Issue 21 item 3: one producer's payload killed other producers' jobs. ``{"n": 1e4300}`` is stored
as a 4,301-digit integer that Python's json refuses, and psycopg raised while reading the claim's
answer, after the claim had committed: the whole batch stayed claimed until its lease ran out, and
each reclaim charged every job in it a crash. Now each payload is decoded on its own and only the
undecodable job fails (dead at once, with an error that says why)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import psycopg
from pgq_client import enqueue_many
from worker_support import job_rows, prepare, ready, scalar, wait_for

POISON = '{"n": 1e4300}'


def test_one_undecodable_payload_among_40_jobs_fails_alone_and_its_batch_mates_run_once_without_a_crash(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url, lease="2 seconds", max_crashes=3)
    with psycopg.connect(db_url, autocommit=True) as conn:  # the poison is the 6th in line: in the first claim
        ordinary = enqueue_many(conn, "w", [{"n": i, "sleep": 0.05} for i in range(5)])
        poison = int(conn.execute("select q.enqueue('w', %s::jsonb)", (POISON,)).fetchone()[0])
        ordinary += enqueue_many(conn, "w", [{"n": i, "sleep": 0.05} for i in range(5, 40)])
    worker = spawn(db_url, "-q", "w", "--concurrency", "10", "--log-json")
    ready(db_url)
    everything = set(ordinary) | {poison}
    wait_for(lambda: {i for i, j in job_rows(db_url).items() if j["state"] in ("completed", "dead")} >= everything,
             20, "every job to finish")
    jobs = job_rows(db_url)
    assert {jobs[i]["state"] for i in ordinary} == {"completed"}
    assert [i for i in ordinary if jobs[i]["crashes"] or jobs[i]["attempt"] != 1] == [], "no crash budget spent"
    runs = scalar(db_url, "select count(*) from test_runs where phase = 'start' and job_id = any(%s)", (ordinary,))
    assert runs == 40, "every ordinary job ran exactly once"
    bad = jobs[poison]
    assert (bad["state"], bad["crashes"], bad["attempt"]) == ("dead", 0, 1), "failed once, as invalid, not crashed"
    error = bad["errors"][-1]["error"]
    assert "invalid payload" in error and "cannot decode" in error and "4300 digits" in error
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    output = worker.output()
    assert "job_dead" in output and "db_error" not in output
