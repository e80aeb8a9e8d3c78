"""The small records the client returns, and the kinds of answers the SQL functions give.

Rows are decoded by column name (``psycopg.rows.class_row``), never by
position, so a column added to a SQL result type cannot shift the fields. The
answer kinds are ``str`` enums: they compare equal to the strings the SQL
returns (``FailStatus.RETRY == "retry"``), print as those strings, and a type
checker sees every value.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any
from uuid import UUID


class _Kind(str, Enum):
    def __str__(self) -> str:
        return str(self.value)


class FailStatus(_Kind):
    """What ``q.fail``/``q.fail_many`` did to a claim."""

    RETRY = "retry"  # scheduled again after the backoff (or retry_in)
    DEAD = "dead"  # attempts spent, or not retryable: moved to q_data.job_history
    LOST = "lost"  # not the current claim: nothing changed


class BeatStatus(_Kind):
    """What ``q.heartbeat``/``q.heartbeat_many`` said about a claim."""

    RUNNING = "running"  # go on; the lease was extended
    CANCELLED = "cancelled"  # q.cancel was called: stop, nothing will be recorded
    LOST = "lost"  # reaped or taken over: stop, the result would be refused


class JobState(_Kind):
    """A job's state as ``q.jobs()`` reports it."""

    WAITING = "waiting"
    SCHEDULED = "scheduled"
    RUNNING = "running"
    PENDING = "pending"  # waits for its parents (q.enqueue_after, q.enqueue_flow)
    ON_HOLD = "on_hold"  # a parent died or was cancelled under the hold policy (q.unblock)
    COMPLETED = "completed"
    DEAD = "dead"
    CANCELLED = "cancelled"


# The job lists ``q.job_page`` reads (the dashboard's), in the dashboard's order. Not JobState's values:
# held (revision 0008: due, but its concurrency key's slots are taken) is a list of its own there, while
# q.jobs reports held jobs as waiting; pending and on_hold jobs (they wait for parents) only q.jobs lists.
JOB_LIST_STATES = ("waiting", "held", "scheduled", "running", "completed", "dead", "cancelled")


@dataclass(frozen=True, slots=True)
class UndecodablePayload:
    """Stands in for a payload Python cannot decode, in the one job whose payload it is.

    PostgreSQL stores JSON that Python's ``json`` refuses to turn into
    objects: a number such as ``1e4300`` is printed as a 4,301-digit integer,
    and Python refuses integers of more than 4,300 digits (``ValueError``).
    pgq decodes each job's payload on its own, so such a payload no longer
    fails the whole claim: :func:`~pgq_client.claim` returns that job with
    this in place of its payload, and the other jobs as usual. The worker
    fails such a job as not retryable (dead at once) with :attr:`reason` as
    its error; a caller of ``claim`` does the same with
    ``fail(conn, job.id, job.token, job.payload.reason, retryable=False)``.

    reason: what went wrong, e.g. ``Python cannot decode this payload (4,309
    bytes of JSON): ValueError: Exceeds the limit (4300 digits) ...``.
    Indexing it raises ``ValueError`` with the reason, so code that missed the
    check fails with a clear message rather than a confusing one.
    """

    reason: str

    def __getitem__(self, key: Any) -> Any:
        raise ValueError(f"this job's payload could not be decoded: {self.reason}")

    def get(self, key: Any, default: Any = None) -> Any:
        raise ValueError(f"this job's payload could not be decoded: {self.reason}")


@dataclass(frozen=True, slots=True)
class Job:
    """A claimed job (one row of ``q.claim``). Finish it with its id and token.

    ``payload`` is the decoded JSON, or an :class:`UndecodablePayload` when
    Python cannot decode that job's payload (the claim's other jobs are not affected).
    """

    id: int
    queue: str
    payload: Any
    attempt: int
    crashes: int
    priority: int
    token: UUID
    lease_until: datetime


class Blocked(_Kind):
    """Why ``q.claim_explained`` returned fewer jobs than asked (``ClaimAnswer.blocked``)."""

    CONCURRENCY = "concurrency"  # every slot of the queue's concurrency is taken: a running job must end
    KEY_CONCURRENCY = "key_concurrency"  # jobs held until a running job of their key ends
    RATE = "rate"  # the queue's rate window is full: retry_in says when the next start is allowed
    KEY_RATE = "key_rate"  # jobs put off by their key's rate: retry_in says when the first is due
    PAUSED = "paused"  # q.pause: nothing is claimed until q.resume


@dataclass(frozen=True, slots=True)
class ClaimAnswer:
    """What :func:`~pgq_client.claim_explained` got: the jobs, and why there are fewer than asked.

    ``blocked`` is None when nothing but an empty queue stopped the claim.
    ``retry_in`` is set (and positive) with ``RATE`` and ``KEY_RATE``: look again
    then. With ``CONCURRENCY``/``KEY_CONCURRENCY`` no time is known (a running job
    must end; a listening worker is notified), so it is None.
    """

    jobs: list[Job]
    blocked: Blocked | None
    retry_in: timedelta | None

    @classmethod
    def of_rows(cls, rows: list[dict[str, Any]]) -> ClaimAnswer:
        """The rows of ``q.claim_explained`` (by column name): jobs where id is set, the reason on every row."""
        first = rows[0] if rows else {}
        blocked = first.get("blocked")
        return cls(
            jobs=[Job(**{f: r[f] for f in Job.__slots__}) for r in rows if r["id"] is not None],
            blocked=Blocked(blocked) if blocked is not None else None,
            retry_in=first.get("retry_in"),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a batch call did to one job: a :class:`FailStatus` or a :class:`BeatStatus`."""

    id: int
    status: FailStatus | BeatStatus

    @classmethod
    def of_fail(cls, *, id: int, status: str) -> Outcome:  # noqa: A002 - the column's name
        return cls(id, FailStatus(status))

    @classmethod
    def of_beat(cls, *, id: int, status: str) -> Outcome:  # noqa: A002 - the column's name
        return cls(id, BeatStatus(status))


@dataclass(frozen=True, slots=True)
class QueueStats:
    """One row of ``q.stats()``."""

    queue: str
    paused: bool
    waiting: int
    scheduled: int
    running: int
    dead: int
    oldest_waiting: timedelta | None
    # False: the count above it is the planner's estimate (more than exact_up_to).
    waiting_exact: bool = True
    scheduled_exact: bool = True
    dead_exact: bool = True
    # Revision 0008: jobs held back by their concurrency key (before it they were counted in waiting).
    held: int = 0
    held_exact: bool = True
    # Revision 0010: jobs that wait for parents (pending) and on hold after a parent failed (hold policy).
    pending: int = 0
    pending_exact: bool = True
    on_hold: int = 0
    on_hold_exact: bool = True


@dataclass(frozen=True, slots=True)
class ThroughputBucket:
    """One row of ``q.throughput()``: what finished in one queue in one minute."""

    queue: str
    minute: datetime
    completed: int
    failed: int  # failed attempts that will retry
    dead: int


@dataclass(frozen=True, slots=True)
class ThroughputTotal:
    """One row of ``q.throughput_totals()``: per queue since ``since``; never decreases."""

    queue: str
    completed: int
    failed: int
    dead: int
    since: datetime | None


@dataclass(frozen=True, slots=True)
class Reason:
    """One row of ``q.explain(id)``: one reason a job is not running now."""

    code: str
    message: str
    detail: dict[str, Any]


class ResultState(str, Enum):
    """What became of a job (``q.results``): live states, final states, or ``unknown``."""

    WAITING = "waiting"
    SCHEDULED = "scheduled"
    HELD = "held"  # waiting for its concurrency key's slot (flow control)
    RUNNING = "running"
    COMPLETED = "completed"
    DEAD = "dead"
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"  # never existed, completed without result or history, or past retention


FINAL_STATES = frozenset({"completed", "dead", "cancelled", "unknown"})


@dataclass(frozen=True, slots=True)
class JobResult:
    """One row of ``q.results`` / ``q.result``: what became of a job.

    ``state`` is a :class:`ResultState` value as text (a state a later revision adds
    passes through). ``result`` is the completed job's result (the handler's return
    value), ``progress`` the last ``q.heartbeat(progress => ...)``.
    """

    id: int
    queue: str | None
    state: str
    result: Any
    last_error: str | None
    attempts: int | None
    finished_at: datetime | None
    progress: Any

    @property
    def finished(self) -> bool:
        """True once nothing more will happen to the job (completed, dead, cancelled, or unknown)."""
        return self.state in FINAL_STATES


@dataclass(frozen=True, slots=True)
class BulkResult:
    """What a bulk call did: how many jobs (``count``), how many it left alone (``skipped``), and
    whether more match (``more``: call again; every bulk call is bounded by its max_rows)."""

    count: int
    more: bool
    skipped: int = 0

    @classmethod
    def of_retry_dead(cls, *, retried: int, skipped: int, more: bool) -> BulkResult:
        return cls(retried, more, skipped)

    @classmethod
    def of_cancel(cls, *, cancelled: int, more: bool) -> BulkResult:
        return cls(cancelled, more)

    @classmethod
    def of_purge(cls, *, purged: int, more: bool) -> BulkResult:
        return cls(purged, more)


@dataclass(frozen=True, slots=True)
class JobPageRow:
    """One row of ``q.job_page``: a job in a list; pass ``next_after`` of the last row for the next page.

    ``id`` is None on a row that only says where a search stopped (its max_scan budget ran out).
    """

    id: int | None
    queue: str | None
    state: str
    attempt: int | None
    priority: int | None
    run_at: datetime | None
    lease_until: datetime | None
    finished_at: datetime | None
    last_error: str | None
    payload: Any
    next_after: dict[str, Any]


@dataclass(frozen=True, slots=True)
class HealthCheck:
    """One row of ``q.health()``."""

    check_name: str
    object: str
    severity: str  # ok, info, warning, critical
    message: str
    advice: str
    detail: dict[str, Any]


class Limit(_Kind):
    """A flow-control limit, by the name ``q.configure(unlimit => ...)`` takes."""

    CONCURRENCY = "concurrency"
    KEY_CONCURRENCY = "key_concurrency"
    RATE = "rate"
    KEY_RATE = "key_rate"  # revision 0007


class CatchUp(_Kind):
    """What a schedule does with slots missed by more than a minute (downtime)."""

    LATEST = "latest"  # fire the newest missed slot once, unless a slot is on time
    ALL = "all"  # fire the missed slots, the newest 100 at most
    NONE = "none"  # skip them


@dataclass(frozen=True, slots=True)
class ScheduleInfo:
    """One row of ``q.schedules()`` (what ``q.schedule`` returns too)."""

    name: str
    queue: str
    cron: str | None
    every: timedelta | None
    timezone: str
    catch_up: str
    paused: bool
    next_fire_at: datetime | None
    last_slot: datetime | None
    last_fired_at: datetime | None
    last_job_id: int | None
    payload: Any
    priority: int
    max_attempts: int | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class QueueSettings:
    """A queue's settings, as ``q.configure`` leaves them."""

    queue: str
    paused: bool
    lease: timedelta
    max_attempts: int
    max_crashes: int
    backoff_base: timedelta
    backoff_max: timedelta
    keep_completed: bool
    retention: timedelta
    # Flow control (revision 0005; None / False on an older database).
    concurrency: int | None = None
    key_concurrency: int | None = None
    ordered: bool = False
    rate: int | None = None
    per: timedelta | None = None
    # Per-key rate (revision 0007; None on an older database).
    key_rate: int | None = None
    key_per: timedelta | None = None
    # The longest lease a claim or heartbeat may ask for (revision 0008; None on an older database).
    max_lease: timedelta | None = None
    # How long results are kept and their cap in bytes (revision 0009; None on an older database).
    keep_results: timedelta | None = None
    max_result_size: int | None = None


@dataclass(frozen=True, slots=True)
class QueueLimits:
    """One row of ``q.limits()``: a limited queue's limits and how full they are now."""

    queue: str
    concurrency: int | None
    running: int
    key_concurrency: int | None
    ordered: bool
    busy_keys: int
    held: int  # exact up to 10,000; 10,001 means more
    rate: int | None
    per: timedelta | None
    started_in_window: int
    next_start_at: datetime | None
    # Per-key rate: at most key_rate starts of one concurrency key per key_per (revision 0007; None
    # on an older database, whose q.limits has no such columns).
    key_rate: int | None = None
    key_per: timedelta | None = None


@dataclass(frozen=True, slots=True)
class JobInfo:
    """One row of ``q.jobs()``: a job wherever it is, live or finished."""

    id: int
    queue: str
    state: str
    attempt: int
    crashes: int
    priority: int
    run_at: datetime
    lease_until: datetime | None
    finished_at: datetime | None
    dedup_key: str | None
    payload: Any
    errors: list[dict[str, Any]] | None
    # The flow-control key it was enqueued with (revision 0008; None on an older database).
    concurrency_key: str | None = None


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """One row of ``q.job_graph(id)``: the job itself (relation ``self``), one of its parents or one of
    its children, with its state (``pending``: waits for parents; ``on_hold``: a parent failed under the
    hold policy; ``gone``: completed in a queue that keeps no history), how the edge ended (None while
    the parent runs) and the edge's ``on_parent_failure`` policy."""

    job_id: int
    relation: str
    state: str
    queue: str | None
    edge_outcome: str | None
    on_parent_failure: str | None


@dataclass(frozen=True, slots=True)
class BatchInfo:
    """``q.batch(id)``: when the batch was sealed and its callback enqueued (``callback_id``), how many
    members are left and how many completed, died or were cancelled."""

    batch_id: int
    callback_queue: str
    on_dead: str
    created_at: datetime
    sealed_at: datetime | None
    fired_at: datetime | None
    callback_id: int | None
    members_left: int
    completed: int
    dead: int
    cancelled: int
