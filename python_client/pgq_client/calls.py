"""pgq's SQL API as plain functions on the caller's psycopg connection.

Each function runs one statement and returns small dataclasses. None of them
commits, opens a pool or retries: the caller owns the connection and the
transaction. That is what makes transactional enqueue work (enqueue inside
your own transaction and the job exists exactly when your data does), and it
is why ``claim`` belongs on an autocommit connection: the claim commits at
once and no transaction stays open while the job runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from . import statements as sql
from .jobs import Job, JobInfo, Outcome, QueueStats

Connection = psycopg.Connection[Any]


def enqueue(
    conn: Connection,
    queue: str,
    payload: Any,
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    dedup_key: str | None = None,
) -> int:
    """Add a job (``q.enqueue``) and return its id, or the id of the waiting job with the same dedup_key."""
    row = conn.execute(sql.ENQUEUE, (queue, Jsonb(payload), run_at, priority, max_attempts, dedup_key)).fetchone()
    return int(row[0])


def enqueue_many(
    conn: Connection,
    queue: str,
    payloads: Sequence[Any],
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
) -> list[int]:
    """Add one job per payload in one statement (``q.enqueue_many``); ids in payload order."""
    rows = conn.execute(sql.ENQUEUE_MANY, (queue, Jsonb(list(payloads)), run_at, priority, max_attempts)).fetchall()
    return [int(r[0]) for r in rows]


def claim(
    conn: Connection,
    queue: str,
    n: int = 1,
    *,
    lease: timedelta | None = None,
    owner: int | None = None,
) -> list[Job]:
    """Claim up to n due jobs (``q.claim``). Use an autocommit connection.

    owner: None records this connection's liveness key; pass a key from
    :func:`session_key` held on another connection, or 0 for lease-only
    claims (behind PgBouncer in transaction mode).
    """
    with conn.cursor(row_factory=class_row(Job)) as cur:
        return cur.execute(sql.CLAIM, (queue, n, lease, owner)).fetchall()


def complete(conn: Connection, job_id: int, token: UUID) -> bool:
    """Mark a claimed job done; False if the claim was no longer current (nothing changed)."""
    return bool(conn.execute(sql.COMPLETE, (job_id, token)).fetchone()[0])


def complete_many(conn: Connection, jobs: Iterable[Job]) -> list[int]:
    """Complete many claims in one statement; returns the ids that were still current."""
    batch = list(jobs)
    rows = conn.execute(sql.COMPLETE_MANY, ([j.id for j in batch], [j.token for j in batch])).fetchall()
    return [int(r[0]) for r in rows]


def complete_and_claim(
    conn: Connection,
    finished: Iterable[Job],
    queue: str,
    n: int = 1,
    *,
    lease: timedelta | None = None,
    owner: int | None = None,
) -> tuple[list[int], list[Job]]:
    """Complete finished jobs and claim the next ones in one round trip: (completed ids, new jobs).

    The two statements go out pipelined. On an autocommit connection they run
    as one implicit transaction: one commit per cycle instead of two, which is
    what a tight worker loop wants. (In a transaction of yours, they are just
    two statements of it.)
    """
    batch = list(finished)
    with conn.pipeline():
        done = conn.execute(sql.COMPLETE_MANY, ([j.id for j in batch], [j.token for j in batch])) if batch else None
        claimed = conn.cursor(row_factory=class_row(Job))
        claimed.execute(sql.CLAIM, (queue, n, lease, owner))
    return ([int(r[0]) for r in done.fetchall()] if done else []), claimed.fetchall()


def fail(
    conn: Connection,
    job_id: int,
    token: UUID,
    error: str,
    *,
    retry_in: timedelta | None = None,
    retryable: bool = True,
) -> str:
    """Record a failed attempt: returns ``retry``, ``dead`` or ``lost`` (not the current claim)."""
    return str(conn.execute(sql.FAIL, (job_id, token, error, retry_in, retryable)).fetchone()[0])


def fail_many(
    conn: Connection, failures: Iterable[tuple[Job, str]], *, retry_in: timedelta | None = None
) -> list[Outcome]:
    """Fail many claims, each with its error text, in one statement."""
    batch = list(failures)
    params = ([j.id for j, _ in batch], [j.token for j, _ in batch], [e for _, e in batch], retry_in)
    with conn.cursor(row_factory=class_row(Outcome)) as cur:
        return cur.execute(sql.FAIL_MANY, params).fetchall()


def heartbeat(conn: Connection, job_id: int, token: UUID, *, lease: timedelta | None = None) -> str:
    """Extend a claim's lease: ``running``, ``cancelled`` (stop) or ``lost`` (stop; the result will be refused)."""
    return str(conn.execute(sql.HEARTBEAT, (job_id, token, lease)).fetchone()[0])


def heartbeat_many(conn: Connection, jobs: Iterable[Job], *, lease: timedelta | None = None) -> list[Outcome]:
    """Heartbeat many claims in one statement."""
    batch = list(jobs)
    with conn.cursor(row_factory=class_row(Outcome)) as cur:
        return cur.execute(sql.HEARTBEAT_MANY, ([j.id for j in batch], [j.token for j in batch], lease)).fetchall()


def release(conn: Connection, job_id: int, token: UUID) -> bool:
    """Give a claim back unfinished (``q.release``): waiting again at once, the attempt not counted."""
    return bool(conn.execute(sql.RELEASE, (job_id, token)).fetchone()[0])


def release_many(conn: Connection, jobs: Iterable[Job]) -> list[int]:
    """Release many claims in one statement; returns the ids that were still current."""
    batch = list(jobs)
    rows = conn.execute(sql.RELEASE_MANY, ([j.id for j in batch], [j.token for j in batch])).fetchall()
    return [int(r[0]) for r in rows]


def reap(conn: Connection, max_jobs: int = 1000) -> int:
    """Return lost claims to their queues (``q.reap``); 0 when another session is reaping."""
    return int(conn.execute(sql.REAP, (max_jobs,)).fetchone()[0])


def session_key(conn: Connection) -> int:
    """This connection's liveness key, held until it closes (``q.session_key``)."""
    return int(conn.execute(sql.SESSION_KEY).fetchone()[0])


def cancel(conn: Connection, job_id: int) -> bool:
    """Cancel a waiting, scheduled or running job; False if it had already finished."""
    return bool(conn.execute(sql.CANCEL, (job_id,)).fetchone()[0])


def retry(conn: Connection, job_id: int) -> int:
    """Put a dead or cancelled job back in its queue."""
    return int(conn.execute(sql.RETRY, (job_id,)).fetchone()[0])


def pause(conn: Connection, queue: str) -> None:
    """Stop claims from a queue."""
    conn.execute(sql.PAUSE, (queue,))


def resume(conn: Connection, queue: str) -> None:
    """Let claims from a paused queue go on."""
    conn.execute(sql.RESUME, (queue,))


def stats(conn: Connection) -> list[QueueStats]:
    """Per-queue counts (``q.stats()``)."""
    with conn.cursor(row_factory=class_row(QueueStats)) as cur:
        return cur.execute(sql.STATS).fetchall()


def jobs(
    conn: Connection,
    *,
    queue: str | None = None,
    state: str | None = None,
    job_id: int | None = None,
    limit: int = 50,
) -> list[JobInfo]:
    """Jobs newest first, live and finished (``q.jobs``), filtered by queue, state or id."""
    with conn.cursor(row_factory=class_row(JobInfo)) as cur:
        return cur.execute(sql.JOBS, (queue, state, job_id, limit)).fetchall()


def listen(conn: Connection, queues: Iterable[str] | None = None, *, timeout: float | None = None) -> Iterator[str]:
    """Yield queue names as jobs are enqueued (NOTIFY pgq), until timeout seconds pass without one.

    Needs an autocommit connection (a LISTEN inside a transaction waits for
    its commit), checked before anything is sent. LISTEN runs at once, so no
    notification sent after this call returns is missed. Notifications are
    hints: poll as well, they can be lost.
    """
    if not conn.autocommit:
        raise ValueError("listen() needs an autocommit connection: psycopg.connect(..., autocommit=True)")
    conn.execute(sql.LISTEN)
    return _queue_names(conn, queues, timeout)


def _queue_names(conn: Connection, queues: Iterable[str] | None, timeout: float | None) -> Iterator[str]:
    wanted = set(queues) if queues is not None else None
    for note in conn.notifies(timeout=timeout):
        if wanted is None or note.payload in wanted:
            yield note.payload
