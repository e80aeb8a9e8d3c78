"""Suite 6: interleavings between two real sessions, stepped deterministically.

Session A works inside an open transaction; session B runs one statement at
a time (autocommit, as workers do). Each step waits until PostgreSQL says B
finished or is waiting on A's lock, so every interleaving below is the one
named, every time. (tests/core/test_two_sessions.py covers plain claim||claim
and the reaped-token basics; these go through the other pairs.)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import psycopg
import pytest
from psycopg.types.json import Jsonb

from .figures import record
from .stepping import Session, blocks, finishes_without_waiting, outcome


@pytest.fixture
def pair(db_url: str, conn: psycopg.Connection[Any]) -> Iterator[tuple[Session, Session]]:
    a = Session(psycopg.connect(db_url, autocommit=False), conn)
    b = Session(psycopg.connect(db_url, autocommit=True), conn)
    yield a, b
    for s in (a, b):
        s.close()
        s.conn.close()


def enqueue(conn: psycopg.Connection[Any], queue: str, count: int, priority: int = 0) -> list[int]:
    rows = conn.execute("select q.enqueue_many(%s, %s, priority => %s)",
                        (queue, Jsonb([{"n": n} for n in range(count)]), priority)).fetchall()
    return [r[0] for r in rows]


def claimed(conn: psycopg.Connection[Any], queue: str, lease: str = "5 minutes") -> tuple[int, UUID]:
    """Enqueue one job and claim it (committed); its id and token."""
    enqueue(conn, queue, 1)
    job_id, token = conn.execute("select id, token from q.claim(%s, 1, %s::interval, 0)", (queue, lease)).fetchone()
    return job_id, token


def row(conn: psycopg.Connection[Any], job_id: int) -> tuple[Any, ...] | None:
    """The job's whole row plus xmin: equal before and after means nothing wrote to it."""
    return conn.execute("select xmin::text, j::text from q_data.job j where id = %s", (job_id,)).fetchone()


def test_claim_while_a_higher_priority_claim_is_uncommitted_takes_the_next_jobs_in_order_without_waiting(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any]
) -> None:
    a, b = pair
    top = enqueue(conn, "cc", 2, priority=5)
    rest = enqueue(conn, "cc", 3)
    assert [r[0] for r in a.run("select id from q.claim('cc', 2)")] == top

    got = finishes_without_waiting(b, "select id from q.claim('cc', 2)")
    assert [r[0] for r in got] == rest[:2]
    a.conn.rollback()  # A's claim never happened: its jobs are next, with no attempt spent
    got = finishes_without_waiting(b, "select id, attempt from q.claim('cc', 10)")
    assert got == [(top[0], 1), (top[1], 1), (rest[2], 1)]
    record("6", "claim || claim (priority order, rollback costs no attempt)", result="passed")


@pytest.mark.parametrize("a_ends", ["commit", "rollback"])
def test_complete_racing_an_uncommitted_complete_waits_and_exactly_one_says_true(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any], a_ends: str
) -> None:
    a, b = pair
    job_id, token = claimed(conn, "complete")
    assert a.run("select q.complete(%s, %s)", (job_id, token)) == [(True,)]
    assert finishes_without_waiting(b, "select count(*) from q.claim('complete', 10)") == [(0,)]

    racing = blocks(b, "select q.complete(%s, %s)", (job_id, token))
    getattr(a.conn, a_ends)()
    assert outcome(racing) == [(a_ends == "rollback",)]
    assert row(conn, job_id) is None
    record("6", f"complete || complete ({a_ends})", result="passed")


def test_reap_does_not_see_an_uncommitted_claim_and_returns_it_once_committed_and_expired(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any]
) -> None:
    a, b = pair
    (job_id,) = enqueue(conn, "reap", 1)
    a.run("select id from q.claim('reap', 1, '1 millisecond', 0)")
    time.sleep(0.01)  # the lease has run out, but the claim is not committed

    assert finishes_without_waiting(b, "select q.reap()") == [(0,)]
    a.conn.commit()
    assert finishes_without_waiting(b, "select q.reap()") == [(1,)]
    found = conn.execute("select state, crashes, errors from q_data.job where id = %s", (job_id,))
    state, crashes, errors = found.fetchone()
    assert (state, crashes) == ("w", 1)
    assert errors[0]["error"] == "claim lost (lease expired)"
    record("6", "claim || reap (uncommitted claim invisible, then expired)", result="passed")


def test_a_claim_does_not_see_a_job_an_uncommitted_reap_returned_until_it_commits(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any]
) -> None:
    a, b = pair
    job_id, _ = claimed(conn, "reap2", lease="1 millisecond")
    time.sleep(0.01)
    assert a.run("select q.reap()") == [(1,)]  # uncommitted: the job is waiting only inside A

    assert finishes_without_waiting(b, "select id from q.claim('reap2', 1)") == []
    a.conn.commit()
    assert [r[0] for r in finishes_without_waiting(b, "select id from q.claim('reap2', 1)")] == [job_id]
    record("6", "reap || claim (uncommitted reap invisible)", result="passed")


@pytest.mark.parametrize("a_ends", ["commit", "rollback"])
def test_enqueue_in_an_open_transaction_is_invisible_to_claims_and_silent_until_commit(
    pair: tuple[Session, Session], db_url: str, a_ends: str
) -> None:
    a, b = pair
    with psycopg.connect(db_url, autocommit=True) as listener:
        listener.execute("listen pgq")
        # It waits for the queue (an empty listening claim), so that an enqueue notifies it
        # (design.md#wake-ups-on-demand).
        listener.execute("set pgq.listening = on")
        listener.execute("select count(*) from q.claim('open', 1, owner => q.session_key())")
        (job_id,) = [r[0] for r in a.run("select q.enqueue('open', '{}')")]

        assert finishes_without_waiting(b, "select id from q.claim('open', 1)") == []
        assert list(listener.notifies(timeout=0.3, stop_after=1)) == []
        getattr(a.conn, a_ends)()
        notes = [n.payload for n in listener.notifies(timeout=1.0, stop_after=1)]
        got = [r[0] for r in finishes_without_waiting(b, "select id from q.claim('open', 1)")]

    if a_ends == "commit":
        assert (notes, got) == (["open"], [job_id])
    else:
        assert (notes, got) == ([], [])
    record("6", f"enqueue in open transaction || claim ({a_ends})", result="passed")


def test_reap_skips_a_job_being_completed_and_the_completion_stands(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any]
) -> None:
    a, b = pair
    job_id, token = claimed(conn, "cr", lease="1 millisecond")
    time.sleep(0.01)  # expired: the reaper would take it back...
    assert a.run("select q.complete(%s, %s)", (job_id, token)) == [(True,)]  # ...but A is completing it

    assert finishes_without_waiting(b, "select q.reap()") == [(0,)]
    a.conn.commit()
    assert finishes_without_waiting(b, "select q.reap()") == [(0,)]
    assert row(conn, job_id) is None
    assert conn.execute("select count(*) from q_data.job_history").fetchone()[0] == 0
    record("6", "complete || reap (reap skips the job being completed)", result="passed")


def test_complete_waiting_on_an_uncommitted_reap_of_its_claim_is_refused(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any]
) -> None:
    a, b = pair
    job_id, token = claimed(conn, "rc", lease="1 millisecond")
    time.sleep(0.01)
    assert a.run("select q.reap()") == [(1,)]

    late = blocks(b, "select q.complete(%s, %s)", (job_id, token))
    a.conn.commit()
    assert outcome(late) == [(False,)]
    assert conn.execute("select state, crashes, token from q_data.job where id = "
                        "%s", (job_id,)).fetchone() == ("w", 1, None)
    record("6", "reap || complete (late complete refused)", result="passed")


@pytest.mark.parametrize("function", ["complete_many", "release_many"])
def test_a_batch_call_waiting_on_an_uncommitted_reap_and_reclaim_leaves_the_new_claim_alone(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any], function: str
) -> None:
    # The batch functions find their rows first and write them after: when the
    # row they wait on comes back running under a new token, the stale call
    # changes nothing and the new holder keeps its job.
    a, b = pair
    job_id, token = claimed(conn, f"re_{function}", lease="1 millisecond")
    time.sleep(0.01)
    assert a.run("select q.reap()") == [(1,)]
    (new_id, new_token), = a.run("select id, token from q.claim(%s, 1, owner => 0)", (f"re_{function}",))
    assert (new_id, new_token != token) == (job_id, True)

    late = blocks(b, f"select * from q.{function}(%s, %s)", ([job_id], [token]))
    a.conn.commit()
    assert outcome(late) == []
    assert conn.execute("select state, token from q_data.job where id = %s", (job_id,)).fetchone() == ("r", new_token)
    record("6", f"reap + reclaim || {function} (stale batch call refused)", result="passed")


@pytest.mark.parametrize("function", ["complete_many", "release_many"])
def test_a_batch_call_waiting_on_an_uncommitted_heartbeat_of_its_own_claim_goes_through(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any], function: str
) -> None:
    # A heartbeat writes a new version of the row under the same token; the
    # batch call waiting on it must act on that version, not give up.
    a, b = pair
    job_id, token = claimed(conn, f"hb_{function}")
    assert a.run("select q.heartbeat(%s, %s)", (job_id, token)) == [("running",)]

    late = blocks(b, f"select * from q.{function}(%s, %s)", ([job_id], [token]))
    a.conn.commit()
    assert outcome(late) == [(job_id,)]
    left = conn.execute("select state, token from q_data.job where id = %s", (job_id,)).fetchone()
    assert left == (None if function == "complete_many" else ("w", None))
    record("6", f"heartbeat || {function} (goes through)", result="passed")


def test_complete_waiting_on_an_uncommitted_cancel_is_refused_and_the_heartbeat_says_cancelled(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any]
) -> None:
    a, b = pair
    job_id, token = claimed(conn, "cancel")
    assert a.run("select q.cancel(%s)", (job_id,)) == [(True,)]

    late = blocks(b, "select q.complete(%s, %s)", (job_id, token))
    a.conn.commit()
    assert outcome(late) == [(False,)]
    assert b.run("select q.heartbeat(%s, %s)", (job_id, token)) == [("cancelled",)]
    assert conn.execute("select state from q_data.job_history where id = %s", (job_id,)).fetchone() == ("cancelled",)
    record("6", "cancel || complete (refused, heartbeat says cancelled)", result="passed")


def test_every_stale_token_call_after_a_reclaim_is_refused_and_writes_nothing(
    pair: tuple[Session, Session], conn: psycopg.Connection[Any], db_url: str
) -> None:
    a, b = pair
    (job_id,) = enqueue(conn, "stale", 1)
    with psycopg.connect(db_url, autocommit=True) as doomed:
        claim = "select token from q.claim('stale', 1, owner => q.session_key())"
        (stale,) = [r[0] for r in doomed.execute(claim).fetchall()]
        doomed_pid = doomed.info.backend_pid
    # The client's close returns before the server has removed the backend: the reaper
    # sees a session as gone only once its backend has exited (a loaded machine shows it).
    for _ in range(500):
        if not conn.execute("select from pg_stat_activity where pid = %s", (doomed_pid,)).fetchall():
            break
        time.sleep(0.01)
    assert finishes_without_waiting(b, "select q.reap()") == [(1,)]  # its session is gone
    ((current,),) = finishes_without_waiting(b, "select token from q.claim('stale', 1)")
    before = row(conn, job_id)

    assert b.run("select q.complete(%s, %s)", (job_id, stale)) == [(False,)]
    assert b.run("select q.fail(%s, %s, 'late')", (job_id, stale)) == [("lost",)]
    assert b.run("select q.heartbeat(%s, %s)", (job_id, stale)) == [("lost",)]
    assert b.run("select * from q.release(%s, %s)", (job_id, stale)) == [(False,)]
    assert b.run("select * from q.complete_many(%s, %s)", ([job_id], [stale])) == []
    assert b.run("select status from q.fail_many(%s, %s, %s)", ([job_id], [stale], ["late"])) == [("lost",)]
    assert b.run("select status from q.heartbeat_many(%s, %s)", ([job_id], [stale])) == [("lost",)]
    assert b.run("select * from q.release_many(%s, %s)", ([job_id], [stale])) == []
    assert row(conn, job_id) == before, "a refused call wrote to the row"

    assert b.run("select q.complete(%s, %s)", (job_id, current)) == [(True,)]
    a.conn.rollback()
    record("6", "stale token after reclaim (8 calls refused, row unchanged)", result="passed")
