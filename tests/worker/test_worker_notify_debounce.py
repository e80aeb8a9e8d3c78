"""Spoofed ``NOTIFY pgq, '<queue>'`` from any role drove an idle Worker to one claim per notification
(7,215 in 10 s made 3,670 claims: design.md#notifications-are-only-hints). Wake-ups are debounced per
queue now: at most one empty claim per queue per slice (``_hints.NOTIFY_DEBOUNCE``) after a notification,
while a real job enqueued during the flood still starts promptly.

The claims are counted by PostgreSQL, not by the worker: ``pg_stat_user_functions`` counts the calls
of ``q.claim`` (track_functions on for this test's database)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from pgq_client import enqueue
from pgq_client.worker._hints import NOTIFY_DEBOUNCE
from worker_support import prepare, ready, scalar, wait_for

# A pickup under 1 s:
# CPU contention from tests running beside it could break that (make test runs serial tests alone).
pytestmark = pytest.mark.serial

FLOOD_SECONDS = 5.0
CLAIM_CALLS = (
    "select coalesce(sum(calls), 0) from pg_stat_user_functions where schemaname = 'q' and funcname = 'claim'"
)


def claim_calls(url: str) -> int:
    return int(scalar(url, CLAIM_CALLS))  # a new session: a fresh stats snapshot


def spoof(conn: psycopg.Connection[Any], until: float, sent: list[int]) -> None:
    """One notification per transaction (within one, equal notifications are folded into one)."""
    while time.monotonic() < until:
        conn.execute("select pg_notify('pgq', 'w')")
        sent[0] += 1


def test_a_flood_of_spoofed_notifications_costs_an_idle_worker_one_claim_per_slice_and_a_real_job_still_starts(
    db_url: str, spawn: Callable[..., Any], hostile: Any
) -> None:
    prepare(db_url)
    dbname = psycopg.conninfo.conninfo_to_dict(db_url)["dbname"]
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f'alter database "{dbname}" set track_functions = \'all\'')
    worker = spawn(db_url, "-q", "w", "--poll-interval", "30")  # no poll explains a claim or a start
    ready(db_url)
    time.sleep(1.5)  # the start-up claims are done and their counts flushed (idle backends flush within 1 s)
    before = claim_calls(db_url)

    spoofer = hostile.connect(db_url)  # a role with no pgq rights at all
    sent = [0]
    flood = threading.Thread(target=spoof, args=(spoofer, time.monotonic() + FLOOD_SECONDS, sent))
    flood.start()
    time.sleep(FLOOD_SECONDS / 2)
    with psycopg.connect(db_url, autocommit=True) as conn:
        enqueued_at = conn.execute("select clock_timestamp()").fetchone()[0]
        job_id = enqueue(conn, "w", {"n": 1})
    started = wait_for(lambda: scalar(db_url, "select min(at) from test_runs where job_id = %s", (job_id,)), 20,
                       "the real job to start during the flood")
    pickup = (started - enqueued_at).total_seconds()
    flood.join()
    worker.signal(signal.SIGTERM)  # its backends flush their function counts as they exit
    assert worker.wait(15) == 0
    time.sleep(0.5)
    claims = claim_calls(db_url) - before
    print(f"{sent[0]} spoofed notifications in {FLOOD_SECONDS:.0f} s: {claims} claims; a real job started"
          f" {pickup * 1000:.0f} ms after its enqueue")
    assert sent[0] > 1000, "the flood was a flood"
    slices = FLOOD_SECONDS / NOTIFY_DEBOUNCE
    assert claims <= slices + 15, f"{claims} claims for {slices:.0f} debounce slices"
    assert pickup < 1.0, "a real job is still picked up promptly (the poll is 30 s away)"
