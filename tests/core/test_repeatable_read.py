"""Workers whose sessions default to REPEATABLE READ claim concurrently without
a serialization-failure storm: no 40001 reaches them, and every job is claimed
exactly once."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

JOBS = 5_000
QUEUE = "rr"
REPEATABLE_READ_DEFAULT = r"-c default_transaction_isolation=repeatable\ read"
CLAIM = "select id, token from q.claim(%s, %s)"
COMPLETE_MANY = "select * from q.complete_many(%s, %s)"


def claim_until_drained(url: str, worker: int, explicit_transaction: bool) -> dict[str, Any]:
    """Claim 1..10 at a time and complete; returns the claimed ids and every error seen.

    explicit_transaction: claim inside BEGIN ISOLATION LEVEL REPEATABLE READ,
    with the snapshot taken by an earlier read so it is already stale.
    """
    rng = random.Random(worker)
    ids: list[int] = []
    errors: list[str] = []
    isolation: set[str] = set()
    empty_in_a_row = 0
    options = "" if explicit_transaction else REPEATABLE_READ_DEFAULT
    with psycopg.connect(url, autocommit=True, options=options) as conn:
        while empty_in_a_row < 3:
            try:
                if explicit_transaction:
                    with conn.transaction():
                        conn.execute("set transaction isolation level repeatable read")
                        conn.execute("select count(*) from q_data.job")  # fixes the snapshot
                        time.sleep(0.001)  # others claim meanwhile
                        isolation.add(conn.execute("show transaction_isolation").fetchone()[0])
                        rows = conn.execute(CLAIM, (QUEUE, rng.randint(1, 10))).fetchall()
                else:
                    isolation.add(conn.execute("show transaction_isolation").fetchone()[0])
                    rows = conn.execute(CLAIM, (QUEUE, rng.randint(1, 10))).fetchall()
                if rows:
                    done = conn.execute(COMPLETE_MANY, ([r[0] for r in rows], [r[1] for r in rows])).fetchall()
                    assert len(done) == len(rows)
            except psycopg.Error as error:
                errors.append(f"{error.sqlstate}: {error}")
                continue
            ids += [r[0] for r in rows]
            empty_in_a_row = 0 if rows else empty_in_a_row + 1
            if not rows:
                time.sleep(0.01)
    return {"ids": ids, "errors": errors, "isolation": isolation}


def enqueue_backlog(conn: psycopg.Connection[Any]) -> list[int]:
    payloads = Jsonb([{"n": n} for n in range(JOBS)])
    return [r[0] for r in conn.execute("select q.enqueue_many(%s, %s)", (QUEUE, payloads)).fetchall()]


def assert_each_claimed_once(enqueued: list[int], results: list[dict[str, Any]]) -> None:
    claimed = [job_id for r in results for job_id in r["ids"]]
    assert [e for r in results for e in r["errors"]] == []
    assert len(claimed) == len(set(claimed)), "a job was claimed twice"
    assert set(claimed) == set(enqueued), "a job was never claimed"


def test_four_repeatable_read_workers_claim_a_backlog_without_errors_each_job_once(
    conn: psycopg.Connection[Any], db_url: str, run_processes: Callable[..., list[Any]]
) -> None:
    enqueued = enqueue_backlog(conn)
    results = run_processes(claim_until_drained, [(db_url, w, False) for w in range(4)], timeout=120)

    assert all(r["isolation"] == {"repeatable read"} for r in results), "sessions really defaulted to RR"
    assert_each_claimed_once(enqueued, results)
    assert all(r["ids"] for r in results), "every worker got jobs"
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0


def test_a_claim_inside_an_explicit_repeatable_read_transaction_with_a_stale_snapshot_gets_only_free_jobs(
    conn: psycopg.Connection[Any], db_url: str, run_processes: Callable[..., list[Any]]
) -> None:
    enqueued = enqueue_backlog(conn)
    args = [(db_url, 0, True)] + [(db_url, w, False) for w in range(1, 4)]
    results = run_processes(claim_until_drained, args, timeout=120)

    assert results[0]["isolation"] == {"repeatable read"}
    assert results[0]["ids"], "the explicit-transaction worker got jobs"
    assert_each_claimed_once(enqueued, results)
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0


def test_a_repeatable_read_enqueue_racing_a_reused_dedup_key_gets_40001_as_documented(
    conn: psycopg.Connection[Any], db_url: str
) -> None:
    # README, error table: under REPEATABLE READ an enqueue with a dedup_key
    # that meets a job holding that key added after the transaction's snapshot
    # raises 40001 (ON CONFLICT cannot decide against a row it cannot see).
    conn.execute("select q.enqueue('rr', '{}')")  # the queue exists: not the first-enqueue case
    with psycopg.connect(db_url) as producer:
        producer.execute("set transaction isolation level repeatable read")
        producer.execute("select 1")  # the snapshot is taken here
        conn.execute("select q.enqueue('rr', '{}', dedup_key => 'k')")
        with pytest.raises(psycopg.errors.SerializationFailure):
            producer.execute("select q.enqueue('rr', '{}', dedup_key => 'k')")
        producer.rollback()
        again = producer.execute("select q.enqueue('rr', '{}', dedup_key => 'k')").fetchone()[0]
        producer.commit()
    assert conn.execute("select count(*) from q_data.job where dedup_key = 'k'").fetchone()[0] == 1
    assert again == conn.execute("select id from q_data.job where dedup_key = 'k'").fetchone()[0]
