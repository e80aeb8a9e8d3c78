"""Two real sessions on one queue: claims never overlap, and a claim that was
taken away from a session can no longer be finished by it (fencing)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

Connect = Callable[..., psycopg.Connection[Any]]
Row = dict[str, Any]


def enqueue_jobs(conn: psycopg.Connection[Any], queue: str, count: int) -> list[int]:
    payloads = Jsonb([{"n": n} for n in range(count)])
    return [r[0] for r in conn.execute("select q.enqueue_many(%s, %s)", (queue, payloads)).fetchall()]


def claim_ids(conn: psycopg.Connection[Any], queue: str, n: int) -> list[int]:
    return [r[0] for r in conn.execute("select id from q.claim(%s, %s)", (queue, n)).fetchall()]


def job_row(conn: psycopg.Connection[Any], job_id: int) -> Row:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute("select * from q_data.job where id = %s", (job_id,)).fetchall()
    assert len(rows) == 1, f"job {job_id}: expected one row in q_data.job, got {rows}"
    return rows[0]


def test_claim_skips_jobs_locked_by_another_sessions_open_claim_transaction(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    ids = enqueue_jobs(conn, "two", 10)
    session_a = connect(autocommit=False)
    # B must never wait on A's row locks: a blocked claim fails this test.
    session_b = connect(options="-c statement_timeout=5s")

    claimed_a = claim_ids(session_a, "two", 4)  # A's transaction stays open, rows locked
    claimed_b = claim_ids(session_b, "two", 10)

    assert len(claimed_a) == 4
    assert len(claimed_b) == 6
    assert set(claimed_a).isdisjoint(claimed_b)
    assert set(claimed_a) | set(claimed_b) == set(ids)
    assert claim_ids(session_b, "two", 10) == []

    session_a.commit()
    running = conn.execute("select count(*), count(distinct token) from q_data.job where state = 'r'").fetchone()
    assert running == (10, 10)


def test_jobs_of_a_rolled_back_claim_transaction_are_claimable_again(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    enqueue_jobs(conn, "two", 6)
    session_a = connect(autocommit=False)
    session_b = connect(options="-c statement_timeout=5s")

    claimed_a = claim_ids(session_a, "two", 3)
    assert len(claim_ids(session_b, "two", 6)) == 3
    session_a.rollback()

    assert sorted(claim_ids(session_b, "two", 6)) == sorted(claimed_a)


def test_two_autocommit_sessions_claiming_at_the_same_moment_get_disjoint_jobs(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    ids = enqueue_jobs(conn, "two", 600)
    sessions = [connect(), connect()]
    # Both sessions claim in lock-step rounds: each round's two claims start together.
    start_round = threading.Barrier(2, timeout=30)
    claimed: list[list[int]] = [[], []]
    last_round = [0, 0]
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            while True:
                start_round.wait()
                got = claim_ids(sessions[index], "two", 1 + len(claimed[index]) % 7)
                claimed[index].extend(got)
                last_round[index] = len(got)
                start_round.wait()  # both see the same totals after this
                if sum(last_round) == 0:
                    break
        except BaseException as error:
            errors.append(error)
            start_round.abort()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors

    assert claimed[0] and claimed[1], "each session got jobs"
    assert set(claimed[0]).isdisjoint(claimed[1])
    assert len(claimed[0]) + len(claimed[1]) == len(ids)
    assert set(claimed[0]) | set(claimed[1]) == set(ids)


def test_a_reaped_claims_old_token_changes_nothing_and_the_new_claimer_completes(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    (job_id,) = enqueue_jobs(conn, "two", 1)
    session_a, session_b = connect(), connect()

    old = session_a.execute("select id, token from q.claim('two', 1, lease => '10 milliseconds')").fetchone()
    assert old[0] == job_id
    time.sleep(0.05)
    assert conn.execute("select q.reap()").fetchone()[0] == 1  # lease expired, A's session still alive
    new = session_b.execute("select id, token from q.claim('two', 1)").fetchone()
    assert new[0] == job_id and new[1] != old[1]

    before = job_row(conn, job_id)
    assert before["state"] == "r" and before["token"] == new[1] and before["crashes"] == 1
    assert session_a.execute("select q.complete(%s, %s)", old).fetchone()[0] is False
    assert session_a.execute("select q.fail(%s, %s, 'late failure')", old).fetchone()[0] == "lost"
    assert session_a.execute("select q.heartbeat(%s, %s)", old).fetchone()[0] == "lost"
    assert session_a.execute("select q.heartbeat(%s, %s, '1 hour')", old).fetchone()[0] == "lost"
    assert session_a.execute("select * from q.complete_many(%s, %s)", ([old[0]], [old[1]])).fetchall() == []
    assert session_a.execute("select q.release(%s, %s)", old).fetchone()[0] is False
    assert session_a.execute("select * from q.release_many(%s, %s)", ([old[0]], [old[1]])).fetchall() == []
    assert session_a.execute(
        "select status from q.fail_many(%s, %s, %s)", ([old[0]], [old[1]], ["late"])
    ).fetchall() == [("lost",)]
    assert job_row(conn, job_id) == before

    assert session_b.execute("select q.complete(%s, %s)", new).fetchone()[0] is True
    assert conn.execute("select count(*) from q_data.job where id = %s", (job_id,)).fetchone()[0] == 0


def test_an_old_token_is_refused_while_the_reaped_job_waits_for_its_next_claim(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    (job_id,) = enqueue_jobs(conn, "two", 1)
    session_a = connect()
    old = session_a.execute("select id, token from q.claim('two', 1, lease => '10 milliseconds')").fetchone()
    time.sleep(0.05)
    assert conn.execute("select q.reap()").fetchone()[0] == 1

    before = job_row(conn, job_id)
    assert before["state"] == "w" and before["token"] is None
    assert session_a.execute("select q.heartbeat(%s, %s)", old).fetchone()[0] == "lost"
    assert session_a.execute("select q.complete(%s, %s)", old).fetchone()[0] is False
    assert session_a.execute("select q.fail(%s, %s, 'late')", old).fetchone()[0] == "lost"
    assert job_row(conn, job_id) == before
