"""--log-json: every record is JSON (pgq's, the application's, psycopg's), ISO-8601 times with milliseconds
and zone, job events with their duration, failure summaries that name the exception and its message."""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from worker_support import prepare, scalar, wait_for

ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")


def test_log_json_makes_every_record_json_with_iso_times_durations_and_summaries(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url, "fast", max_attempts=1)
    prepare(db_url, "slow")
    from worker_test_app import ping

    with psycopg.connect(db_url, autocommit=True) as conn:
        ping.enqueue(conn, {"n": 1, "ms": 20})
        ping.enqueue(conn, {"n": 2, "fail": "mailbox full"})
    worker = spawn(db_url, "--log-json", "--log-level", "debug", handler="worker_test_app:app")
    wait_for(lambda: scalar(db_url, "select count(*) from q_data.job_history") == 2, 30, "both jobs")
    dbname = conninfo_to_dict(db_url)["dbname"]
    with psycopg.connect(db_url, autocommit=True) as conn:  # the pool's connections die: psycopg may log
        conn.execute("select pg_terminate_backend(pid) from pg_stat_activity where datname = %s"
                     " and application_name like 'pgq-worker:%%'", (dbname,))
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0
    lines = [ln for ln in worker.output().splitlines() if ln.strip()]
    records = [json.loads(ln) for ln in lines]  # every line is a JSON object, or this raises
    assert all(ISO_MS.match(r["time"]) for r in records), records[0]["time"]
    by_event = {r["event"]: r for r in records}
    done, failed = by_event["job_completed"], by_event["job_dead"]
    assert done["duration_ms"] >= 20 and isinstance(failed["duration_ms"], float)
    assert failed["error"] == "ValueError: mailbox full", "the first line of the message, not the URL at the end"
    app_log = [r for r in records if r["logger"] == "worker_test_app"]
    assert app_log and app_log[0]["message"] == "startup hook ran" and app_log[0]["event"] == "log"
