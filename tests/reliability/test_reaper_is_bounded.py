"""Suite 5: the reaper is bounded. 50,000 lost claims come back in batches of
at most max_jobs, and no single q.reap() transaction takes a second or more,
whether the claims were lost by running out of lease or because their
sessions are gone (one session key each: every probe of a gone session keeps
an advisory lock until commit, and PostgreSQL's lock table is small)."""

from __future__ import annotations

import time
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from .figures import record

CLAIMS = 50_000
BATCH = 1000  # q.reap()'s default max_jobs
TRANSACTION_LIMIT = 1.0  # seconds: the promise for one reap transaction


def claim_backlog(conn: psycopg.Connection[Any], queue: str, *, lease: str, owner: int) -> None:
    """Enqueue CLAIMS jobs and claim them all (in claims of 1000) with the given lease and owner."""
    conn.execute("set pgq.notify = off")
    for _ in range(CLAIMS // 10_000):
        conn.execute("select q.enqueue_many(%s, %s)", (queue, Jsonb(list(range(10_000)))))
    for _ in range(CLAIMS // 1000):
        got = conn.execute("select count(*) from q.claim(%s, 1000, %s::interval, %s)", (queue, lease, owner))
        assert got.fetchone()[0] == 1000
    assert conn.execute("select count(*) from q_data.job where state = 'r'").fetchone()[0] == CLAIMS


def reap_all(conn: psycopg.Connection[Any]) -> tuple[list[int], list[float]]:
    """q.reap() in its own transaction until nothing comes back; each call's count and duration."""
    counts: list[int] = []
    seconds: list[float] = []
    while True:
        started = time.perf_counter()
        got = conn.execute("select q.reap()").fetchone()[0]
        seconds.append(time.perf_counter() - started)
        if got == 0:
            return counts, seconds
        counts.append(got)


def assert_all_back(conn: psycopg.Connection[Any], counts: list[int], seconds: list[float]) -> None:
    assert sum(counts) == CLAIMS, f"reaped {sum(counts)} of {CLAIMS}"
    assert max(counts) <= BATCH, f"one reap returned {max(counts)} claims, more than max_jobs"
    assert len(counts) >= CLAIMS // BATCH
    assert max(seconds) < TRANSACTION_LIMIT, f"slowest reap transaction took {max(seconds):.3f} s"
    states = conn.execute("select state, count(*), min(crashes), max(crashes) from q_data.job group by 1").fetchall()
    assert states == [("w", CLAIMS, 1, 1)], states


def test_50000_expired_leases_come_back_in_bounded_batches_each_under_a_second(
    conn: psycopg.Connection[Any],
) -> None:
    claim_backlog(conn, "expired", lease="1 second", owner=0)
    time.sleep(1.1)  # every lease has run out

    counts, seconds = reap_all(conn)

    assert_all_back(conn, counts, seconds)
    record("5", "expired leases", claims=CLAIMS, reap_calls=len(counts), largest_batch=max(counts),
           slowest_reap_s=round(max(seconds), 3), total_s=round(sum(seconds), 2))


def test_50000_claims_of_50000_gone_sessions_come_back_in_bounded_batches_without_exhausting_locks(
    conn: psycopg.Connection[Any],
) -> None:
    # A lease that cannot run out during the test: only session evidence can free these.
    claim_backlog(conn, "gone", lease="1 hour", owner=0)
    # One claim per session key, keys nobody holds: what 50,000 connections
    # that claimed a job each and died leave behind. Through the API that
    # takes one q.claim per key (about a minute); the state is built directly.
    conn.execute(
        "update q_data.job j set owner = 100000000 + k.n"
        "  from (select ctid, row_number() over (order by id) as n from q_data.job) k where k.ctid = j.ctid"
    )
    sessions = conn.execute("select count(distinct owner) from q_data.job where state = 'r'").fetchone()[0]
    assert sessions == CLAIMS
    lock_table = conn.execute(
        "select current_setting('max_locks_per_transaction')::int"
        "     * (current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int)"
    ).fetchone()[0]

    counts, seconds = reap_all(conn)

    assert_all_back(conn, counts, seconds)
    record("5", "gone sessions", claims=CLAIMS, sessions=sessions, lock_table_slots=lock_table,
           reap_calls=len(counts), largest_batch=max(counts), slowest_reap_s=round(max(seconds), 3),
           total_s=round(sum(seconds), 2))
