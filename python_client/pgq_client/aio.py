"""The async twin of :mod:`pgq_client`, for ``psycopg.AsyncConnection``.

Same SQL (:mod:`pgq_client.statements`), same rules: nothing here commits,
pools or retries.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from . import statements as sql
from .jobs import Job, JobInfo, Outcome, QueueStats

AsyncConnection = psycopg.AsyncConnection[Any]


async def _scalar(conn: AsyncConnection, query: str, params: Sequence[Any] = ()) -> Any:
    cur = await conn.execute(query, params)
    return (await cur.fetchone())[0]


async def enqueue(
    conn: AsyncConnection,
    queue: str,
    payload: Any,
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    dedup_key: str | None = None,
) -> int:
    """Add a job (``q.enqueue``) and return its id."""
    return int(await _scalar(conn, sql.ENQUEUE, (queue, Jsonb(payload), run_at, priority, max_attempts, dedup_key)))


async def enqueue_many(
    conn: AsyncConnection,
    queue: str,
    payloads: Sequence[Any],
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
) -> list[int]:
    """Add one job per payload in one statement; ids in payload order."""
    cur = await conn.execute(sql.ENQUEUE_MANY, (queue, Jsonb(list(payloads)), run_at, priority, max_attempts))
    return [int(r[0]) for r in await cur.fetchall()]


async def claim(
    conn: AsyncConnection, queue: str, n: int = 1, *, lease: timedelta | None = None, owner: int | None = None
) -> list[Job]:
    """Claim up to n due jobs (``q.claim``). Use an autocommit connection."""
    async with conn.cursor(row_factory=class_row(Job)) as cur:
        await cur.execute(sql.CLAIM, (queue, n, lease, owner))
        return await cur.fetchall()


async def complete(conn: AsyncConnection, job_id: int, token: UUID) -> bool:
    """Mark a claimed job done; False if the claim was no longer current."""
    return bool(await _scalar(conn, sql.COMPLETE, (job_id, token)))


async def complete_many(conn: AsyncConnection, jobs: Iterable[Job]) -> list[int]:
    """Complete many claims in one statement; returns the ids that were still current."""
    batch = list(jobs)
    cur = await conn.execute(sql.COMPLETE_MANY, ([j.id for j in batch], [j.token for j in batch]))
    return [int(r[0]) for r in await cur.fetchall()]


async def complete_and_claim(
    conn: AsyncConnection,
    finished: Iterable[Job],
    queue: str,
    n: int = 1,
    *,
    lease: timedelta | None = None,
    owner: int | None = None,
) -> tuple[list[int], list[Job]]:
    """Complete finished jobs and claim the next ones in one round trip (one commit in autocommit)."""
    batch = list(finished)
    async with conn.pipeline():
        done = None
        if batch:
            done = await conn.execute(sql.COMPLETE_MANY, ([j.id for j in batch], [j.token for j in batch]))
        claimed = conn.cursor(row_factory=class_row(Job))
        await claimed.execute(sql.CLAIM, (queue, n, lease, owner))
    return ([int(r[0]) for r in await done.fetchall()] if done else []), await claimed.fetchall()


async def fail(
    conn: AsyncConnection,
    job_id: int,
    token: UUID,
    error: str,
    *,
    retry_in: timedelta | None = None,
    retryable: bool = True,
) -> str:
    """Record a failed attempt: ``retry``, ``dead`` or ``lost``."""
    return str(await _scalar(conn, sql.FAIL, (job_id, token, error, retry_in, retryable)))


async def fail_many(
    conn: AsyncConnection, failures: Iterable[tuple[Job, str]], *, retry_in: timedelta | None = None
) -> list[Outcome]:
    """Fail many claims, each with its error text, in one statement."""
    batch = list(failures)
    params = ([j.id for j, _ in batch], [j.token for j, _ in batch], [e for _, e in batch], retry_in)
    async with conn.cursor(row_factory=class_row(Outcome)) as cur:
        await cur.execute(sql.FAIL_MANY, params)
        return await cur.fetchall()


async def heartbeat(conn: AsyncConnection, job_id: int, token: UUID, *, lease: timedelta | None = None) -> str:
    """Extend a claim's lease: ``running``, ``cancelled`` or ``lost``."""
    return str(await _scalar(conn, sql.HEARTBEAT, (job_id, token, lease)))


async def heartbeat_many(
    conn: AsyncConnection, jobs: Iterable[Job], *, lease: timedelta | None = None
) -> list[Outcome]:
    """Heartbeat many claims in one statement."""
    batch = list(jobs)
    async with conn.cursor(row_factory=class_row(Outcome)) as cur:
        await cur.execute(sql.HEARTBEAT_MANY, ([j.id for j in batch], [j.token for j in batch], lease))
        return await cur.fetchall()


async def release(conn: AsyncConnection, job_id: int, token: UUID) -> bool:
    """Give a claim back unfinished: waiting again at once, the attempt not counted."""
    return bool(await _scalar(conn, sql.RELEASE, (job_id, token)))


async def release_many(conn: AsyncConnection, jobs: Iterable[Job]) -> list[int]:
    """Release many claims in one statement; returns the ids that were still current."""
    batch = list(jobs)
    cur = await conn.execute(sql.RELEASE_MANY, ([j.id for j in batch], [j.token for j in batch]))
    return [int(r[0]) for r in await cur.fetchall()]


async def reap(conn: AsyncConnection, max_jobs: int = 1000) -> int:
    """Return lost claims to their queues; 0 when another session is reaping."""
    return int(await _scalar(conn, sql.REAP, (max_jobs,)))


async def session_key(conn: AsyncConnection) -> int:
    """This connection's liveness key, held until it closes."""
    return int(await _scalar(conn, sql.SESSION_KEY))


async def cancel(conn: AsyncConnection, job_id: int) -> bool:
    """Cancel a waiting, scheduled or running job; False if it had already finished."""
    return bool(await _scalar(conn, sql.CANCEL, (job_id,)))


async def retry(conn: AsyncConnection, job_id: int) -> int:
    """Put a dead or cancelled job back in its queue."""
    return int(await _scalar(conn, sql.RETRY, (job_id,)))


async def pause(conn: AsyncConnection, queue: str) -> None:
    """Stop claims from a queue."""
    await conn.execute(sql.PAUSE, (queue,))


async def resume(conn: AsyncConnection, queue: str) -> None:
    """Let claims from a paused queue go on."""
    await conn.execute(sql.RESUME, (queue,))


async def stats(conn: AsyncConnection) -> list[QueueStats]:
    """Per-queue counts (``q.stats()``)."""
    async with conn.cursor(row_factory=class_row(QueueStats)) as cur:
        await cur.execute(sql.STATS)
        return await cur.fetchall()


async def jobs(
    conn: AsyncConnection,
    *,
    queue: str | None = None,
    state: str | None = None,
    job_id: int | None = None,
    limit: int = 50,
) -> list[JobInfo]:
    """Jobs newest first, live and finished (``q.jobs``), filtered by queue, state or id."""
    async with conn.cursor(row_factory=class_row(JobInfo)) as cur:
        await cur.execute(sql.JOBS, (queue, state, job_id, limit))
        return await cur.fetchall()


def listen(
    conn: AsyncConnection, queues: Iterable[str] | None = None, *, timeout: float | None = None
) -> AsyncIterator[str]:
    """Yield queue names as jobs are enqueued, until timeout seconds pass without one.

    The autocommit check happens here, at the call; LISTEN is sent when the
    iteration starts.
    """
    if not conn.autocommit:
        raise ValueError("listen() needs an autocommit connection: AsyncConnection.connect(..., autocommit=True)")
    return _queue_names(conn, queues, timeout)


async def _queue_names(
    conn: AsyncConnection, queues: Iterable[str] | None, timeout: float | None
) -> AsyncIterator[str]:
    await conn.execute(sql.LISTEN)
    wanted = set(queues) if queues is not None else None
    async for note in conn.notifies(timeout=timeout):
        if wanted is None or note.payload in wanted:
            yield note.payload
