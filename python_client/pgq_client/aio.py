"""pgq's SQL API as plain functions on the caller's psycopg AsyncConnection.

Each function runs one statement (from :mod:`pgq_client._queries`) and returns
small records (:mod:`pgq_client.records`) decoded by column name. None of them
commits, opens a pool or retries: the caller owns the connection and the
transaction. That is what makes transactional enqueue work (enqueue inside
your own transaction and the job exists exactly when your data does), and it
is why ``claim`` belongs on an autocommit connection: the claim commits at
once and no transaction stays open while the job runs.

This file is the one source of the client functions: ``pgq_client/_client.py``
(the sync functions ``pgq_client`` exports) is generated from it by
``tools/async_to_sync.py``, and ``make lint`` fails when it is stale.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import class_row, dict_row, kwargs_row, scalar_row
from psycopg.types.json import Jsonb

from . import _queries as sql
from ._decoding import decode_each
from ._error_text import clean
from .payloads import dumps
from .records import (
    BatchInfo,
    BeatStatus,
    BulkResult,
    CatchUp,
    ClaimAnswer,
    FailStatus,
    GraphEdge,
    HealthCheck,
    Job,
    JobInfo,
    JobPageRow,
    JobResult,
    Limit,
    Outcome,
    QueueLimits,
    QueueSettings,
    QueueStats,
    Reason,
    ScheduleInfo,
    ThroughputBucket,
    ThroughputTotal,
)

AsyncConnection = psycopg.AsyncConnection[Any]


async def _scalar(conn: AsyncConnection, query: str, params: Sequence[Any] = ()) -> Any:
    async with conn.cursor(row_factory=scalar_row) as cur:
        await cur.execute(query, params)
        return await cur.fetchone()


async def _scalars(conn: AsyncConnection, query: str, params: Sequence[Any] = ()) -> list[Any]:
    async with conn.cursor(row_factory=scalar_row) as cur:
        await cur.execute(query, params)
        return await cur.fetchall()


async def enqueue(
    conn: AsyncConnection,
    queue: str,
    payload: Any,
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    dedup_key: str | None = None,
    concurrency_key: str | None = None,
) -> int:
    """Add a job (``q.enqueue``) and return its id, or the id of the waiting job with the same dedup_key.

    The payload is encoded by :mod:`pgq_client.payloads` (datetime, Decimal, UUID, your registered types).
    ``concurrency_key`` puts the job under its queue's ``key_concurrency`` / ``ordered`` limit.
    """
    optional = {"concurrency_key": concurrency_key}
    statement, names = sql.oldest_form(sql.ENQUEUE_FORMS, optional)
    params = (queue, Jsonb(payload, dumps=dumps), run_at, priority, max_attempts, dedup_key)
    return int(await _scalar(conn, statement, params + tuple(optional[n] for n in names)))


async def enqueue_many(
    conn: AsyncConnection,
    queue: str,
    payloads: Sequence[Any],
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    dedup_keys: Sequence[str | None] | None = None,
    idempotency_key: str | None = None,
    concurrency_key: str | None = None,
    concurrency_keys: Sequence[str | None] | None = None,
) -> list[int]:
    """Add one job per payload in one statement (``q.enqueue_many``); ids in payload order.

    dedup_keys: one per payload (None = no key); a payload whose key a waiting,
    scheduled or running job of the queue holds gets that job's id instead.
    idempotency_key: names the whole call. Calling again with the same key
    (within 24 hours) returns the first call's ids and adds nothing, so a
    producer whose commit reply was lost can retry the batch safely.
    concurrency_key gives every job that key; concurrency_keys one key (or None) per payload.
    """
    optional = {"dedup_keys": _listed(dedup_keys), "idempotency_key": idempotency_key,
                "concurrency_key": concurrency_key, "concurrency_keys": _listed(concurrency_keys)}
    statement, names = sql.oldest_form(sql.ENQUEUE_MANY_FORMS, optional)
    params = (queue, Jsonb(list(payloads), dumps=dumps), run_at, priority, max_attempts)
    return [int(i) for i in await _scalars(conn, statement, params + tuple(optional[n] for n in names))]


def _listed(values: Sequence[Any] | None) -> list[Any] | None:
    return None if values is None else list(values)


async def claim(
    conn: AsyncConnection,
    queue: str,
    n: int = 1,
    *,
    lease: timedelta | None = None,
    owner: int | None = None,
) -> list[Job]:
    """Claim up to n due jobs (``q.claim``). Use an autocommit connection.

    owner: None or 0 claims lease-only (the job comes back when its lease runs
    out). For instant reclaim when the worker dies, pass a key from
    :func:`session_key` taken on a connection you keep open for as long as
    the job runs (this one, or a dedicated liveness connection). Never take it
    on a pooled connection that may be closed or recycled while the job runs.

    Each job's payload is decoded on its own: a payload Python cannot decode
    (e.g. ``{"n": 1e4300}``, a number of more than 4,300 digits) comes back as
    an :class:`~pgq_client.records.UndecodablePayload` in that job only, and
    the claim's other jobs as usual. Fail it without retry:
    ``fail(conn, job.id, job.token, job.payload.reason, retryable=False)``.
    """
    async with conn.cursor(row_factory=class_row(Job)) as cur:
        decode_each(cur)
        await cur.execute(sql.CLAIM, (queue, n, lease, owner))
        return await cur.fetchall()


async def claim_explained(
    conn: AsyncConnection,
    queue: str,
    n: int = 1,
    *,
    lease: timedelta | None = None,
    owner: int | None = None,
) -> ClaimAnswer:
    """Claim up to n due jobs and say why fewer came back (``q.claim_explained``), in one statement.

    The same claim as :func:`claim` (same arguments, same errors), plus
    ``blocked`` (the limit, or pause, that left the claim short) and
    ``retry_in`` (with a rate or a key rate: when to look again). Unlike the
    session settings ``pgq.claim_blocked``/``pgq.claim_retry_in``, this works on
    an autocommit or pooled connection.
    """
    async with conn.cursor(row_factory=dict_row) as cur:
        decode_each(cur)
        await cur.execute(sql.CLAIM_EXPLAINED, (queue, n, lease, owner))
        return ClaimAnswer.of_rows(await cur.fetchall())


def _jsonb(value: Any) -> Jsonb | None:
    """A result or progress value as jsonb, through the payload encoder; None stays NULL (no value)."""
    return None if value is None else Jsonb(value, dumps=dumps)


async def complete(conn: AsyncConnection, job_id: int, token: UUID, result: Any = None) -> bool:
    """Mark a claimed job done; False if the claim was no longer current (nothing changed).

    ``result`` (any JSON-encodable value, through the payload encoder; None: no result) is
    stored with the completion and read with :func:`result` / :func:`results` (revision 0009).
    Over the queue's ``max_result_size`` it raises (SQLSTATE 54000) and nothing changes.
    """
    if result is None:
        return bool(await _scalar(conn, sql.COMPLETE, (job_id, token)))
    return bool(await _scalar(conn, sql.COMPLETE_RESULT, (job_id, token, _jsonb(result))))


async def complete_many(conn: AsyncConnection, jobs: Iterable[Job], results: Sequence[Any] | None = None) -> list[int]:
    """Complete many claims in one statement; returns the ids that were still current.

    ``results[i]`` (or None) is the result of the i-th job, as for :func:`complete`.
    """
    batch = list(jobs)
    ids, tokens = [j.id for j in batch], [j.token for j in batch]
    if results is None or all(r is None for r in results):
        return [int(i) for i in await _scalars(conn, sql.COMPLETE_MANY, (ids, tokens))]
    values = [_jsonb(r) for r in results]
    return [int(i) for i in await _scalars(conn, sql.COMPLETE_MANY_RESULTS, (ids, tokens, values))]


async def complete_and_claim(
    conn: AsyncConnection,
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
    done = conn.cursor(row_factory=scalar_row)
    claimed = conn.cursor(row_factory=class_row(Job))
    decode_each(claimed)  # as claim() does: one undecodable payload spoils only its job
    async with conn.pipeline():
        if batch:
            await done.execute(sql.COMPLETE_MANY, ([j.id for j in batch], [j.token for j in batch]))
        await claimed.execute(sql.CLAIM, (queue, n, lease, owner))
    ids = [int(i) for i in await done.fetchall()] if batch else []
    return ids, await claimed.fetchall()


async def fail(
    conn: AsyncConnection,
    job_id: int,
    token: UUID,
    error: str,
    *,
    retry_in: timedelta | None = None,
    retryable: bool = True,
) -> FailStatus:
    """Record a failed attempt: ``retry``, ``dead`` or ``lost`` (not the current claim; nothing changed).

    The error text is sent cleaned: a NUL or a lone surrogate, which PostgreSQL's ``text`` cannot hold,
    is written as an escape (``\\x00``, ``\\udcff``).
    """
    return FailStatus(await _scalar(conn, sql.FAIL, (job_id, token, clean(error), retry_in, retryable)))


async def fail_many(
    conn: AsyncConnection, failures: Iterable[tuple[Job, str]], *, retry_in: timedelta | None = None
) -> list[Outcome]:
    """Fail many claims, each with its error text (cleaned as for :func:`fail`), in one statement."""
    batch = list(failures)
    params = ([j.id for j, _ in batch], [j.token for j, _ in batch], [clean(e) for _, e in batch], retry_in)
    async with conn.cursor(row_factory=kwargs_row(Outcome.of_fail)) as cur:
        await cur.execute(sql.FAIL_MANY, params)
        return await cur.fetchall()


async def heartbeat(
    conn: AsyncConnection, job_id: int, token: UUID, *, lease: timedelta | None = None, progress: Any = None
) -> BeatStatus:
    """Extend a claim's lease: ``running``, ``cancelled`` (stop) or ``lost`` (stop; the result will be refused).

    ``progress`` (JSON-encodable; None: unchanged) is stored in the same update (revision 0009),
    kept across retries and read with :func:`result`.
    """
    if progress is None:
        return BeatStatus(await _scalar(conn, sql.HEARTBEAT, (job_id, token, lease)))
    return BeatStatus(await _scalar(conn, sql.HEARTBEAT_PROGRESS, (job_id, token, lease, _jsonb(progress))))


async def heartbeat_many(
    conn: AsyncConnection, jobs: Iterable[Job], *, lease: timedelta | None = None,
    progress: Sequence[Any] | None = None,
) -> list[Outcome]:
    """Heartbeat many claims in one statement (statuses as for :func:`heartbeat`; ``progress[i]`` or None per job)."""
    batch = list(jobs)
    params: tuple[Any, ...] = ([j.id for j in batch], [j.token for j in batch], lease)
    statement = sql.HEARTBEAT_MANY
    if progress is not None and any(p is not None for p in progress):
        statement, params = sql.HEARTBEAT_MANY_PROGRESS, (*params, [_jsonb(p) for p in progress])
    async with conn.cursor(row_factory=kwargs_row(Outcome.of_beat)) as cur:
        await cur.execute(statement, params)
        return await cur.fetchall()


async def release(conn: AsyncConnection, job_id: int, token: UUID) -> bool:
    """Give a claim back unfinished (``q.release``): waiting again at once, the attempt not counted."""
    return bool(await _scalar(conn, sql.RELEASE, (job_id, token)))


async def release_many(conn: AsyncConnection, jobs: Iterable[Job]) -> list[int]:
    """Release many claims in one statement; returns the ids that were still current."""
    batch = list(jobs)
    return [int(i) for i in await _scalars(conn, sql.RELEASE_MANY, ([j.id for j in batch], [j.token for j in batch]))]


async def reap(conn: AsyncConnection, max_jobs: int = 1000) -> int:
    """Return lost claims to their queues (``q.reap``); 0 when another session is reaping."""
    return int(await _scalar(conn, sql.REAP, (max_jobs,)))


async def adopt(conn: AsyncConnection, jobs: Iterable[Job], owner: int) -> list[int]:
    """Move running claims under liveness key ``owner`` (``q.adopt``, revision 0009); returns the ids moved.

    For a worker whose connection or server went away: after it reconnects
    and takes a new key (:func:`session_key`), the claims it still holds
    are judged by that key. Only a claim's current token moves it; a job not
    returned was reaped, finished or taken over, and its result will be
    refused. Claims whose session ended with the server (a restart, a
    failover) wait ``q.restart_grace()`` (30 s, at most their lease) for this.
    """
    batch = list(jobs)
    return [int(i) for i in await _scalars(conn, sql.ADOPT, ([j.id for j in batch], [j.token for j in batch], owner))]


async def session_key(conn: AsyncConnection) -> int:
    """This connection's liveness key, alive until it closes (``q.session_key``)."""
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


async def configure(
    conn: AsyncConnection,
    queue: str,
    *,
    lease: timedelta | None = None,
    max_attempts: int | None = None,
    max_crashes: int | None = None,
    backoff_base: timedelta | None = None,
    backoff_max: timedelta | None = None,
    keep_completed: bool | None = None,
    retention: timedelta | None = None,
    concurrency: int | None = None,
    key_concurrency: int | None = None,
    ordered: bool | None = None,
    rate: int | None = None,
    per: timedelta | None = None,
    unlimit: Sequence[Limit | str] | None = None,
    key_rate: int | None = None,
    key_per: timedelta | None = None,
    max_lease: timedelta | None = None,
    keep_results: timedelta | None = None,
    max_result_size: int | None = None,
) -> QueueSettings:
    """Change a queue's settings (``q.configure``; None leaves one as it is) and return them all.

    Creates the queue with the defaults first if it has never been used. ``concurrency``,
    ``key_concurrency``, ``ordered``, ``rate``/``per`` and ``unlimit`` (names of limits to remove)
    are flow control (revision 0005); ``key_rate``/``key_per`` (at most key_rate starts of one
    concurrency key in any window of key_per, 1 second unless given; needs ``key_concurrency``;
    ``unlimit=[Limit.KEY_RATE]`` removes it) arrive with revision 0007. A call without them runs
    on older databases too. ``max_lease`` (revision 0008, default 1 hour) is the longest lease a
    claim or heartbeat may ask for (longer: 22023). ``keep_results`` (how long a completed job's
    result stays readable, default 1 day) and ``max_result_size`` (bytes, default 1 MiB) arrive with
    revision 0009. Bad values raise
    ``psycopg.errors.InvalidParameterValue`` (22023) and change nothing.
    """
    optional = {"concurrency": concurrency, "key_concurrency": key_concurrency, "ordered": ordered, "rate": rate,
                "per": per, "unlimit": [str(u) for u in unlimit] if unlimit is not None else None,
                "key_rate": key_rate, "key_per": key_per, "max_lease": max_lease,
                "keep_results": keep_results, "max_result_size": max_result_size}
    statement, names = sql.oldest_form(sql.CONFIGURE_FORMS, optional)
    params = (queue, lease, max_attempts, max_crashes, backoff_base, backoff_max, keep_completed, retention)
    async with conn.cursor(row_factory=class_row(QueueSettings)) as cur:
        await cur.execute(statement, params + tuple(optional[n] for n in names))
        row = await cur.fetchone()
    assert row is not None  # q.configure returns the queue's row
    return row


async def limits(conn: AsyncConnection, queue: str | None = None) -> list[QueueLimits]:
    """Every limited queue's limits and how full they are now (``q.limits``, admin; revision 0005; the
    per-key rate, ``key_rate``/``key_per``, from revision 0007)."""
    async with conn.cursor(row_factory=class_row(QueueLimits)) as cur:
        await cur.execute(sql.LIMITS, (queue,))
        return await cur.fetchall()


async def stats(conn: AsyncConnection, *, exact_up_to: int = 1000) -> list[QueueStats]:
    """Per-queue counts (``q.stats()``): exact up to exact_up_to, estimates above (``*_exact`` says which).

    From revision 0008 the first 1000 ACTIVE queues by name (jobs, history, settings, a schedule or an
    outcome in the last hour), with ``held`` apart from ``waiting``; page further with
    ``pgq_client.observe.queues(conn, after=...)`` or ``q.stats(max_queues, after, include_idle)``.
    """
    async with conn.cursor(row_factory=class_row(QueueStats)) as cur:
        await cur.execute(sql.STATS, (exact_up_to,))
        return await cur.fetchall()


async def throughput(conn: AsyncConnection, *, since: timedelta = timedelta(hours=1)) -> list[ThroughputBucket]:
    """Completed, failed (will retry) and dead per queue and minute (``q.throughput``)."""
    async with conn.cursor(row_factory=class_row(ThroughputBucket)) as cur:
        await cur.execute(sql.THROUGHPUT, (since,))
        return await cur.fetchall()


async def throughput_totals(conn: AsyncConnection) -> list[ThroughputTotal]:
    """Per-queue totals that never decrease (``q.throughput_totals``), for counters."""
    async with conn.cursor(row_factory=class_row(ThroughputTotal)) as cur:
        await cur.execute(sql.THROUGHPUT_TOTALS)
        return await cur.fetchall()


async def explain(conn: AsyncConnection, job_id: int) -> list[Reason]:
    """Why a job is not running now, one :class:`Reason` per reason (``q.explain``)."""
    async with conn.cursor(row_factory=class_row(Reason)) as cur:
        await cur.execute(sql.EXPLAIN, (job_id,))
        return await cur.fetchall()


async def result(conn: AsyncConnection, job_id: int) -> JobResult:
    """What became of one job (``q.result``): state, result, last error, attempts, finish time, progress."""
    async with conn.cursor(row_factory=class_row(JobResult)) as cur:
        await cur.execute(sql.RESULT, (job_id,))
        row = await cur.fetchone()
    assert row is not None  # q.result returns one row for any id
    return row


async def results(conn: AsyncConnection, ids: Iterable[int]) -> list[JobResult]:
    """What became of each job (``q.results``, up to 10000 ids), in the order of ``ids`` (once per id)."""
    wanted = list(dict.fromkeys(ids))
    async with conn.cursor(row_factory=class_row(JobResult)) as cur:
        await cur.execute(sql.RESULTS, (wanted,))
        by_id = {r.id: r for r in await cur.fetchall()}
    return [by_id[i] for i in wanted if i in by_id]


async def parent_results(conn: AsyncConnection, job_id: int) -> list[JobResult]:
    """What became of each parent of a job (``q.parent_results``), in parent id order: a child's inputs."""
    async with conn.cursor(row_factory=class_row(JobResult)) as cur:
        await cur.execute(sql.PARENT_RESULTS, (job_id,))
        return await cur.fetchall()


async def _await_results(conn: AsyncConnection, ids: list[int], seconds: float) -> list[JobResult]:
    # The waiter rows outlive the wait by a margin: the reaper deletes them after it.
    until = timedelta(seconds=min(max(seconds, 0.0) + 5.0, 86400.0))
    async with conn.cursor(row_factory=class_row(JobResult)) as cur:
        await cur.execute(sql.AWAIT_RESULTS, (ids, until))
        return await cur.fetchall()


async def wait_results(
    conn: AsyncConnection, ids: Iterable[int], timeout: float, *, recheck: float = 1.0
) -> list[JobResult]:
    """Block up to ``timeout`` seconds until every job in ``ids`` has finished; returns their results.

    Returns ``q.results`` rows in the order of ``ids``; a job still running at the timeout
    is returned as it is then (check :attr:`JobResult.finished`). Woken by NOTIFY
    pgq_result, which a finishing job sends only while somebody awaits it
    (``q.await_results`` registers this session). Re-checks every ``recheck`` seconds
    (doubling up to 5) as the backstop for a job that finished while the wait began.
    ``conn`` must be in autocommit mode (the registration and LISTEN must commit) and
    not shared with other work while it waits.
    """
    if not conn.autocommit:
        raise ValueError("wait_results needs an autocommit connection (its LISTEN and registration must commit)")
    wanted = list(dict.fromkeys(ids))
    deadline = time.monotonic() + timeout
    await conn.execute(sql.LISTEN_RESULTS)
    try:
        latest = {r.id: r for r in await _await_results(conn, wanted, timeout)}
        pending = {i for i in wanted if i not in latest or not latest[i].finished}
        pause = recheck
        while pending:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            woken: set[int] = set()
            async for note in conn.notifies(timeout=min(left, pause)):
                if note.channel == sql.RESULT_CHANNEL and note.payload.isdigit() and int(note.payload) in pending:
                    woken.add(int(note.payload))
                    break
            if woken:
                rows = await results(conn, sorted(woken))  # by index: they finished
            else:  # the backstop: look at every pending job again (and renew the registration)
                rows = await _await_results(conn, sorted(pending), deadline - time.monotonic())
                pause = min(pause * 2, 5.0)
            for row in rows:
                latest[row.id] = row
                if row.finished:
                    pending.discard(row.id)
    finally:
        await conn.execute(sql.UNLISTEN_RESULTS)
    return [latest[i] for i in wanted if i in latest]


async def health(conn: AsyncConnection) -> list[HealthCheck]:
    """What keeps the queue fast: vacuum, settings, bloat, the xmin horizon (``q.health``)."""
    async with conn.cursor(row_factory=class_row(HealthCheck)) as cur:
        await cur.execute(sql.HEALTH)
        return await cur.fetchall()


async def jobs(
    conn: AsyncConnection,
    *,
    queue: str | None = None,
    state: str | None = None,
    job_id: int | None = None,
    limit: int = 50,
) -> list[JobInfo]:
    """Jobs newest first, live and finished (``q.jobs``), filtered by queue, state or id.

    A payload Python cannot decode is an :class:`~pgq_client.records.UndecodablePayload` (as in :func:`claim`).
    """
    async with conn.cursor(row_factory=class_row(JobInfo)) as cur:
        decode_each(cur)
        await cur.execute(sql.JOBS, (queue, state, job_id, limit))
        return await cur.fetchall()


async def schedule(
    conn: AsyncConnection,
    name: str,
    *,
    queue: str,
    cron: str | None = None,
    every: timedelta | None = None,
    payload: dict[str, Any] | None = None,
    timezone: str = "UTC",
    priority: int = 0,
    max_attempts: int | None = None,
    catch_up: CatchUp | str = CatchUp.LATEST,
) -> ScheduleInfo:
    """Create or replace a schedule (``q.schedule``): give ``cron`` or ``every``; needs pgq_admin.

    Each slot enqueues one job into queue with payload plus ``schedule`` (the
    name) and ``slot`` (ISO 8601, UTC). Replacing with the same timing keeps
    the next slot; the same definition again writes nothing.
    """
    params = (name, cron, queue, Jsonb(payload or {}, dumps=dumps), timezone, priority, max_attempts, str(catch_up),
              every)
    async with conn.cursor(row_factory=class_row(ScheduleInfo)) as cur:
        await cur.execute(sql.SCHEDULE, params)
        row = await cur.fetchone()
    assert row is not None  # q.schedule returns the schedule it wrote
    return row


async def unschedule(conn: AsyncConnection, name: str) -> bool:
    """Delete a schedule (jobs it enqueued stay); False if there was none of that name."""
    return bool(await _scalar(conn, sql.UNSCHEDULE, (name,)))


async def pause_schedule(conn: AsyncConnection, name: str) -> bool:
    """Stop a schedule firing (slots passing meanwhile are skipped); False if there is none of that name."""
    return bool(await _scalar(conn, sql.PAUSE_SCHEDULE, (name,)))


async def resume_schedule(conn: AsyncConnection, name: str) -> bool:
    """Let a paused schedule fire from its next slot after now; False if there is none of that name."""
    return bool(await _scalar(conn, sql.RESUME_SCHEDULE, (name,)))


async def schedules(conn: AsyncConnection, name: str | None = None) -> list[ScheduleInfo]:
    """Every schedule (or the one named) with its next and last fire (``q.schedules()``)."""
    async with conn.cursor(row_factory=class_row(ScheduleInfo)) as cur:
        await cur.execute(sql.SCHEDULES, (name,))
        return await cur.fetchall()


async def job_page(
    conn: AsyncConnection,
    queue: str | None,
    state: str = "waiting",
    *,
    after: dict[str, Any] | None = None,
    search: str | None = None,
    page_size: int = 50,
    max_scan: int = 10000,
) -> list[JobPageRow]:
    """One page of a job list in index order (``q.job_page``); fast at any depth (keyset paging).

    Pass the last row's ``next_after`` as ``after`` for the next page. waiting and scheduled need a queue.
    A payload Python cannot decode is an :class:`~pgq_client.records.UndecodablePayload` (as in :func:`claim`).
    """
    async with conn.cursor(row_factory=class_row(JobPageRow)) as cur:
        decode_each(cur)
        await cur.execute(sql.JOB_PAGE, (queue, state, Jsonb(after) if after is not None else None, search,
                                         page_size, max_scan))
        return await cur.fetchall()


async def retry_dead(
    conn: AsyncConnection, queue: str, *, error_contains: str | None = None, max_rows: int = 1000
) -> BulkResult:
    """Retry up to max_rows dead jobs of a queue (``q.retry_dead``); skipped: a live job holds the dedup key."""
    async with conn.cursor(row_factory=kwargs_row(BulkResult.of_retry_dead)) as cur:
        await cur.execute(sql.RETRY_DEAD, (queue, error_contains, max_rows))
        return _one(await cur.fetchone())


async def cancel_jobs(
    conn: AsyncConnection,
    queue: str,
    *,
    state: str | None = None,
    payload_contains: Any = None,
    max_rows: int = 1000,
) -> BulkResult:
    """Cancel up to max_rows live jobs of a queue, by state and payload (jsonb @>) (``q.cancel_jobs``)."""
    contains = Jsonb(payload_contains) if payload_contains is not None else None
    async with conn.cursor(row_factory=kwargs_row(BulkResult.of_cancel)) as cur:
        await cur.execute(sql.CANCEL_JOBS, (queue, state, contains, max_rows))
        return _one(await cur.fetchone())


async def purge(conn: AsyncConnection, queue: str, *, max_rows: int = 10000) -> BulkResult:
    """Delete up to max_rows waiting and scheduled jobs of a queue, no history (``q.purge``)."""
    async with conn.cursor(row_factory=kwargs_row(BulkResult.of_purge)) as cur:
        await cur.execute(sql.PURGE, (queue, max_rows))
        return _one(await cur.fetchone())


async def delete_queue(conn: AsyncConnection, queue: str) -> int:
    """Delete a queue with no live job, and its history (``q.delete_queue``); returns the history rows deleted."""
    return int(await _scalar(conn, sql.DELETE_QUEUE, (queue,)))


async def enqueue_after(
    conn: AsyncConnection,
    queue: str,
    payload: Any,
    after: Sequence[int],
    *,
    on_parent_failure: str = "cancel",
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    concurrency_key: str | None = None,
    batch: int | None = None,
) -> int:
    """Add a job that runs after every job in ``after`` has ended (``q.enqueue_after``); returns its id.

    Until then the job is pending (never claimed); it becomes waiting in the transaction that ends its
    last parent. on_parent_failure: what a parent that dies or is cancelled does to it: ``cancel``
    (default, cascading to its own children), ``run`` (counts as done) or ``hold`` (on hold until
    :func:`unblock`). batch: join that open batch (:func:`create_batch`); ``after`` may then be empty.
    """
    params = (queue, Jsonb(payload, dumps=dumps), list(after), on_parent_failure, run_at, priority,
              max_attempts, concurrency_key, batch)
    return int(await _scalar(conn, sql.ENQUEUE_AFTER, params))


async def enqueue_flow(conn: AsyncConnection, jobs: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Enqueue a graph of jobs in one statement (``q.enqueue_flow``); returns {ref: id}.

    Each job is a dict with ``queue``, ``payload`` and optionally ``ref``, ``after`` (refs of this
    graph, or ids of existing jobs), ``on_parent_failure``, ``run_at``, ``priority``, ``max_attempts``,
    ``concurrency_key``, ``batch``. All or nothing: a cycle or an unknown ref writes nothing.
    :meth:`pgq_client.App.flow` builds the list.
    """
    async with conn.cursor() as cur:
        await cur.execute(sql.ENQUEUE_GRAPH, (Jsonb(list(jobs), dumps=dumps),))
        return {str(ref): int(job_id) for ref, job_id in await cur.fetchall()}


async def create_batch(conn: AsyncConnection, callback_queue: str, callback_payload: dict[str, Any] | None = None,
                       *, on_dead: str = "wait") -> int:
    """Open a batch (``q.create_batch``); returns its id. After :func:`seal_batch`, once every member
    has ended (or at the first dead member with ``on_dead="fire"``) one callback job is enqueued on
    callback_queue with callback_payload plus ``{"batch": {"id", "completed", "dead", "cancelled"}}``."""
    return int(await _scalar(conn, sql.CREATE_BATCH,
                             (callback_queue, Jsonb(callback_payload or {}, dumps=dumps), on_dead)))


async def seal_batch(conn: AsyncConnection, batch_id: int) -> bool:
    """Seal a batch (``q.seal_batch``): no job joins it any more; False if it was sealed already."""
    return bool(await _scalar(conn, sql.SEAL_BATCH, (batch_id,)))


async def batch(conn: AsyncConnection, batch_id: int) -> BatchInfo | None:
    """A batch's state and counts (``q.batch``), or None for an unknown id."""
    async with conn.cursor(row_factory=class_row(BatchInfo)) as cur:
        await cur.execute(sql.BATCH, (batch_id,))
        return await cur.fetchone()


async def parents(conn: AsyncConnection, job_id: int) -> list[int]:
    """The ids of the jobs a job was enqueued after (``q.parents``), sorted."""
    return [int(i) for i in (await _scalar(conn, sql.PARENTS, (job_id,)) or [])]


async def job_graph(conn: AsyncConnection, job_id: int, *, max_rows: int = 100) -> list[GraphEdge]:
    """A job, its parents and its children with their states (``q.job_graph``)."""
    async with conn.cursor(row_factory=class_row(GraphEdge)) as cur:
        await cur.execute(sql.JOB_GRAPH, (job_id, max_rows))
        return await cur.fetchall()


async def unblock(conn: AsyncConnection, job_id: int) -> bool:
    """Let a job on hold go on (``q.unblock``); False if it is not on hold."""
    return bool(await _scalar(conn, sql.UNBLOCK, (job_id,)))


def _one(row: BulkResult | None) -> BulkResult:
    if row is None:  # the functions always return one row
        raise RuntimeError("a bulk call returned no row")
    return row


async def listen(
    conn: AsyncConnection, queues: Iterable[str] | None = None, *, timeout: float | None = None
) -> AsyncIterator[str]:
    """LISTEN on the connection, then iterate over queue names as jobs are enqueued (NOTIFY pgq).

    The iteration ends when timeout seconds pass without a notification.
    Needs an autocommit connection (a LISTEN inside a transaction waits for
    its commit), checked before anything is sent. LISTEN has run when this
    call returns, so no notification sent after that is missed.
    Notifications are hints: poll as well, they can be lost. An enqueue notifies only a queue some
    session waits for (revision 0008): claim with ``pgq.listening = on`` and ``owner`` the session key
    of this connection, so that a short claim records the wait, or set ``pgq.notify = always`` for the
    producers (README, Notifications).
    """
    if not conn.autocommit:
        raise ValueError("listen() needs an autocommit connection: connect(..., autocommit=True)")
    await conn.execute(sql.LISTEN)
    return _queue_names(conn, set(queues) if queues is not None else None, timeout)


async def _queue_names(conn: AsyncConnection, wanted: set[str] | None, timeout: float | None) -> AsyncIterator[str]:
    async for note in conn.notifies(timeout=timeout):
        if wanted is None or note.payload in wanted:
            yield note.payload
