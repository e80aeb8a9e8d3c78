"""q.retry puts a job back in its graph (revision 0010), exactly once when it races its parent's end.

A retried child waits again for a parent that runs again. The parent may complete while the retry
is in flight, in either order; the retry locks the live parents (q.deps_mark_parents), so the
parent's end sees the reset edge or the retry sees the parent ended: the child ends up waiting,
claimable once, never pending for good and never claimable before its parent completed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import psycopg
from conftest import Connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reliability.stepping import Session, blocks, outcome  # noqa: E402


def dead_parent_and_cancelled_child(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    parent = conn.execute("select q.enqueue('rg_parent', '{}')").fetchone()[0]  # type: ignore[index]
    child = conn.execute("select q.enqueue_after('rg_child', '{}', array[%s])", (parent,)).fetchone()[0]  # type: ignore[index]
    conn.execute("select q.fail(c.id, c.token, 'fatal', retryable => false) from q.claim('rg_parent') c")
    conn.execute("select q.retry(%s)", (parent,))
    return parent, child


def state(conn: psycopg.Connection[Any], job: int) -> str:
    return conn.execute("select state from q.jobs(id => %s)", (job,)).fetchone()[0]  # type: ignore[index,no-any-return]


def test_a_retried_child_waits_for_the_retried_parent(conn: psycopg.Connection[Any]) -> None:
    conn.autocommit = True
    parent, child = dead_parent_and_cancelled_child(conn)
    conn.execute("select q.retry(%s)", (child,))
    assert state(conn, child) == "pending"
    assert conn.execute("select count(*) from q.claim('rg_child')").fetchone()[0] == 0  # type: ignore[index]
    conn.execute("select q.complete(c.id, c.token) from q.claim('rg_parent') c")
    assert [r[0] for r in conn.execute("select id from q.claim('rg_child')")] == [child]


def test_retry_then_parent_completes_concurrently(conn: psycopg.Connection[Any], connect: Connect) -> None:
    """The retry's transaction is open when the parent completes: the completion waits, then frees the child."""
    conn.autocommit = True
    parent, child = dead_parent_and_cancelled_child(conn)
    (job_id, token), = conn.execute("select id, token from q.claim('rg_parent')").fetchall()
    retrier = connect(autocommit=False)
    retrier.execute("select q.retry(%s)", (child,))  # locks the parent's row until commit
    finisher = Session(connect(), connect())
    try:
        done = blocks(finisher, "select q.complete(%s, %s)", (job_id, token))  # waits for the retry's commit
        retrier.commit()
        outcome(done)
    finally:
        finisher.close()
    assert state(conn, child) == "waiting"
    assert [r[0] for r in conn.execute("select id from q.claim('rg_child', 10)")] == [child]


def test_parent_completes_then_retry_concurrently(conn: psycopg.Connection[Any], connect: Connect) -> None:
    """The parent's completion is open when the retry runs: the retry waits, then finds the parent ended."""
    conn.autocommit = True
    parent, child = dead_parent_and_cancelled_child(conn)
    (job_id, token), = conn.execute("select id, token from q.claim('rg_parent')").fetchall()
    finisher = connect(autocommit=False)
    finisher.execute("select q.complete(%s, %s)", (job_id, token))  # the parent's row is deleted, not committed
    retrier = Session(connect(), connect())
    try:
        done = blocks(retrier, "select q.retry(%s)", (child,))  # waits for the completion's commit
        finisher.commit()
        outcome(done)
    finally:
        retrier.close()
    assert state(conn, child) == "waiting"
    assert [r[0] for r in conn.execute("select id from q.claim('rg_child', 10)")] == [child]
