"""Liveness evidence the caller's own connection handling cannot fake
(design.md#a-killed-workers-job-comes-back-at-once). In 0002 a session key was
an advisory lock: after ``pg_advisory_unlock_all()`` (a pool's reset hook) or
``DISCARD ALL`` on the claiming connection, another session's reap took the live
job for crashed; and a claim with the default owner was tied to the claiming
connection, so a pool that closed that idle connection while the job ran had the
job run twice."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

Connect = Callable[..., psycopg.Connection[Any]]


def wait_gone(conn: psycopg.Connection[Any], pid: int) -> None:
    for _ in range(200):
        if not conn.execute("select count(*) from pg_stat_activity where pid = %s", (pid,)).fetchone()[0]:
            return
        time.sleep(0.05)
    raise AssertionError(f"backend {pid} did not end")


@pytest.mark.parametrize("reset", ["select pg_advisory_unlock_all()", "reset all", "discard all"])
def test_a_claimers_own_reset_does_not_make_its_live_job_look_crashed(
    conn: psycopg.Connection[Any], connect: Connect, reset: str
) -> None:
    worker = connect()
    key = worker.execute("select q.session_key()").fetchone()[0]
    conn.execute("select q.enqueue('live', '{}')")
    (job_id,) = worker.execute("select id from q.claim('live', 1, owner => %s)", (key,)).fetchone()

    worker.execute(reset)

    assert conn.execute("select q.reap()").fetchone()[0] == 0, "another session's reap took the live job"
    assert worker.execute("select q.reap()").fetchone()[0] == 0, "the claiming session reaped its own job"
    assert worker.execute("select q.session_key()").fetchone()[0] == key, "the session keeps its key"
    assert conn.execute("select state, owner from q_data.job where id = %s", (job_id,)).fetchone() == ("r", key)


def test_the_key_of_a_closed_session_is_gone_and_its_job_comes_back_at_once(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    worker = connect()
    key, pid = worker.execute("select q.session_key(), pg_backend_pid()").fetchone()
    conn.execute("select q.enqueue('gone', '{}')")
    (job_id,) = worker.execute("select id from q.claim('gone', 1, owner => %s)", (key,)).fetchone()
    worker.close()
    wait_gone(conn, pid)

    assert conn.execute("select q.reap()").fetchone()[0] == 1
    assert conn.execute("select state, crashes from q_data.job where id = %s", (job_id,)).fetchone() == ("w", 1)
    assert conn.execute("select count(*) from q_data.session where key = %s", (key,)).fetchone()[0] == 0


def test_a_default_claim_from_a_pooled_connection_that_is_closed_is_left_to_its_lease(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    # A pool (Node's pg.Pool with idleTimeoutMillis, PgBouncer, ...) closes the
    # idle connection that claimed while the job still runs elsewhere in the app.
    pooled = connect()
    pid = pooled.execute("select pg_backend_pid()").fetchone()[0]
    conn.execute("select q.enqueue('pooled', '{}')")
    (job_id, token) = pooled.execute("select id, token from q.claim('pooled', 1)").fetchone()
    pooled.close()
    wait_gone(conn, pid)

    assert conn.execute("select q.reap()").fetchone()[0] == 0, "the running job was taken for crashed"
    assert conn.execute("select state, owner from q_data.job where id = %s", (job_id,)).fetchone() == ("r", None)
    assert conn.execute("select q.complete(%s, %s)", (job_id, token)).fetchone()[0] is True


def test_a_claim_with_an_unregistered_owner_key_is_refused(conn: psycopg.Connection[Any]) -> None:
    conn.execute("select q.enqueue('typo', '{}')")
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="not a key from q.session_key"):
        conn.execute("select * from q.claim('typo', 1, owner => 987654)")
    assert conn.execute("select state from q_data.job").fetchone()[0] == "w"
