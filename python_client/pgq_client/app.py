"""The task registry: one application object, decorated tasks, one worker process for all of them.

    import pgq_client
    from pydantic import BaseModel

    app = pgq_client.App()

    class Email(BaseModel):
        to: str

    @app.task(queue="emails", payload=Email, lease=60, max_attempts=3, concurrency=5)
    def send_email(email: Email, job: pgq_client.JobContext) -> None:
        ...

    with psycopg.connect(url) as conn, conn.transaction():      # the caller's transaction
        send_email.enqueue(conn, Email(to="ada@example.com"))

    app.run_worker()            # or: pgq worker myapp:app  (every task, each with its own slots)

Schedules are declared next to the task they feed, and written to the
database when a worker starts (:meth:`App.sync_schedules`)::

    @app.periodic(cron="0 3 * * *", timezone="Europe/Berlin", name="nightly-cleanup")
    @app.task(queue="maintenance")
    def cleanup(payload: dict, job: pgq_client.JobContext) -> None:
        ...  # payload["slot"]: the slot this run is for (ISO 8601, UTC)

Importing an App and enqueueing needs psycopg only: the worker runtime
(psycopg_pool) is imported when a worker is made. Extension points for
worker-side features: :meth:`App.on_startup` / :meth:`App.on_shutdown`
(lifecycle hooks; a start-up hook gets a connection before the first claim,
the place to sync schedules or queue settings declared in code), and
:class:`Task`'s settings, which become the worker's per-queue
:class:`~pgq_client.worker.Lane` (:meth:`Task.lane`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import psycopg

from . import _client, aio
from .graph import JobGraph
from .records import CatchUp, QueueLimits
from .worker.options import TASK_SETTINGS, TaskSettings, WorkerOptions, auto_loops, check_queue_name

if TYPE_CHECKING:
    from .worker import AsyncWorker, AsyncWorkerGroup, Worker, WorkerGroup
    from .worker._databases import Databases
    from .worker._lanes import Lane

P = TypeVar("P")


def encode(payload: Any) -> Any:
    """A payload as JSON-ready data: pydantic models (model_dump in JSON mode) and dataclasses become dicts."""
    dump = getattr(payload, "model_dump", None)
    if callable(dump) and not isinstance(payload, type):
        return dump(mode="json")
    if dataclasses.is_dataclass(payload) and not isinstance(payload, type):
        return dataclasses.asdict(payload)
    return payload


class Task(Generic[P]):
    """A handler registered with :meth:`App.task`; call it as the function, enqueue with its helpers.

    The enqueue helpers run ``q.enqueue`` on the connection you pass, inside
    your transaction (they never commit), with the task's queue, priority
    and max_attempts unless you give others.
    """

    def __init__(self, fn: Callable[..., Any], *, queue: str, payload: type[P] | None, lease: timedelta | None,
                 max_attempts: int | None, concurrency: int | None, priority: int, batch_size: int | None,
                 name: str) -> None:
        self.fn = fn
        self.queue = queue
        self.payload = payload
        self.lease = lease
        self.max_attempts = max_attempts
        self.concurrency = concurrency
        self.priority = priority
        self.batch_size = batch_size
        self.name = name
        self.defaults: Mapping[str, Any] = {}  # the App's options (App.task sets them): the level below this task's
        self.limits: FlowLimits | None = None  # the queue's flow-control limits declared in code
        self.__doc__ = fn.__doc__
        self.__name__ = getattr(fn, "__name__", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Task({self.name!r}, queue={self.queue!r})"

    def enqueue(self, conn: psycopg.Connection[Any], payload: P, *, run_at: datetime | None = None,
                priority: int | None = None, max_attempts: int | None = None, dedup_key: str | None = None,
                concurrency_key: str | None = None, after: Sequence[int] | None = None,
                on_parent_failure: str = "cancel", batch: int | None = None) -> int:
        """Add one job for this task in the connection's current transaction; returns its id.

        concurrency_key: the job's key for the queue's ``key_concurrency``/``ordered``/``key_rate`` limits.
        after: ids of jobs this one runs after (``q.enqueue_after``): pending until they have all ended;
        on_parent_failure (cancel, run, hold) says what a parent that dies or is cancelled does to it.
        batch: join that open batch (:func:`pgq_client.create_batch`). Neither goes with dedup_key.
        """
        if after is not None or batch is not None:
            if dedup_key is not None:
                raise ValueError("dedup_key cannot be combined with after or batch")
            return _client.enqueue_after(conn, self.queue, encode(payload), list(after or ()),
                                         on_parent_failure=on_parent_failure, run_at=run_at,
                                         priority=self.priority if priority is None else priority,
                                         max_attempts=max_attempts or self.max_attempts,
                                         concurrency_key=concurrency_key, batch=batch)
        return _client.enqueue(conn, self.queue, encode(payload), run_at=run_at,
                               priority=self.priority if priority is None else priority,
                               max_attempts=max_attempts or self.max_attempts, dedup_key=dedup_key,
                               concurrency_key=concurrency_key)

    def enqueue_many(self, conn: psycopg.Connection[Any], payloads: Sequence[P], *, run_at: datetime | None = None,
                     priority: int | None = None, max_attempts: int | None = None,
                     dedup_keys: Sequence[str | None] | None = None, idempotency_key: str | None = None,
                     concurrency_key: str | None = None,
                     concurrency_keys: Sequence[str | None] | None = None) -> list[int]:
        """Add one job per payload in one statement; ids in payload order (dedup_keys, idempotency_key:
        see :func:`pgq_client.enqueue_many`). concurrency_key: one key for every job;
        concurrency_keys: one key (or None) per payload."""
        return _client.enqueue_many(conn, self.queue, [encode(p) for p in payloads], run_at=run_at,
                                    priority=self.priority if priority is None else priority,
                                    max_attempts=max_attempts or self.max_attempts,
                                    dedup_keys=dedup_keys, idempotency_key=idempotency_key,
                                    concurrency_key=concurrency_key, concurrency_keys=concurrency_keys)

    async def enqueue_async(self, conn: psycopg.AsyncConnection[Any], payload: P, *, run_at: datetime | None = None,
                            priority: int | None = None, max_attempts: int | None = None,
                            dedup_key: str | None = None, concurrency_key: str | None = None,
                            after: Sequence[int] | None = None, on_parent_failure: str = "cancel",
                            batch: int | None = None) -> int:
        """:meth:`enqueue` on an AsyncConnection."""
        if after is not None or batch is not None:
            if dedup_key is not None:
                raise ValueError("dedup_key cannot be combined with after or batch")
            return await aio.enqueue_after(conn, self.queue, encode(payload), list(after or ()),
                                           on_parent_failure=on_parent_failure, run_at=run_at,
                                           priority=self.priority if priority is None else priority,
                                           max_attempts=max_attempts or self.max_attempts,
                                           concurrency_key=concurrency_key, batch=batch)
        return await aio.enqueue(conn, self.queue, encode(payload), run_at=run_at,
                                 priority=self.priority if priority is None else priority,
                                 max_attempts=max_attempts or self.max_attempts, dedup_key=dedup_key,
                                 concurrency_key=concurrency_key)

    async def enqueue_many_async(self, conn: psycopg.AsyncConnection[Any], payloads: Sequence[P], *,
                                 run_at: datetime | None = None, priority: int | None = None,
                                 max_attempts: int | None = None, dedup_keys: Sequence[str | None] | None = None,
                                 idempotency_key: str | None = None, concurrency_key: str | None = None,
                                 concurrency_keys: Sequence[str | None] | None = None) -> list[int]:
        """:meth:`enqueue_many` on an AsyncConnection."""
        return await aio.enqueue_many(conn, self.queue, [encode(p) for p in payloads], run_at=run_at,
                                      priority=self.priority if priority is None else priority,
                                      max_attempts=max_attempts or self.max_attempts,
                                      dedup_keys=dedup_keys, idempotency_key=idempotency_key,
                                      concurrency_key=concurrency_key, concurrency_keys=concurrency_keys)

    def settings(self, app: Mapping[str, Any] | None = None, worker: Mapping[str, Any] | None = None) -> TaskSettings:
        """This task's effective concurrency, batch_size and lease: the worker's arguments > this task's
        own (``@app.task``) > the App's > the default (:class:`~pgq_client.worker.options.TaskSettings`)."""
        own = {"concurrency": self.concurrency, "batch_size": self.batch_size, "lease": self.lease}
        return TaskSettings.resolve(worker or {}, own, self.defaults if app is None else app)

    def lane(self, index: int, app: Mapping[str, Any] | None = None, worker: Mapping[str, Any] | None = None) -> Lane:
        """The worker's per-queue settings for this task (:meth:`settings`)."""
        from .worker._lanes import Lane

        chosen = self.settings(app, worker)
        return Lane.make(index, self.fn, (self.queue,), concurrency=chosen.concurrency,
                         batch_size=chosen.batch_size, lease=chosen.lease, payload=self.payload, name=self.name)


LIMIT_NAMES = ("concurrency", "key_concurrency", "rate", "key_rate")


@dataclasses.dataclass(frozen=True)
class FlowLimits:
    """A queue's flow-control limits declared in code: ``@app.task(queue=..., limits=FlowLimits(...))``.

    They hold across every worker and connection (``q.configure``), unlike a task's
    ``concurrency``, the handler slots of one worker process. A worker writes them when it
    starts (:meth:`App.sync_limits`, idempotent: unchanged limits write nothing).

    concurrency: at most N jobs of the queue run at once. key_concurrency: at most K jobs per
    ``concurrency_key`` admitted at once. ordered: a key's jobs run one at a time, in order
    (key_concurrency 1). rate, per: at most rate starts in any window of per (seconds or
    timedelta; 1 s unless given). key_rate, key_per: the same per concurrency key (needs
    key_concurrency or ordered). None: not declared here.
    """

    concurrency: int | None = None
    key_concurrency: int | None = None
    ordered: bool = False
    rate: int | None = None
    per: timedelta | float | None = None
    key_rate: int | None = None
    key_per: timedelta | float | None = None

    def __post_init__(self) -> None:
        for name in ("per", "key_per"):
            value = getattr(self, name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                object.__setattr__(self, name, timedelta(seconds=value))
        if self.ordered and self.key_concurrency not in (None, 1):
            raise ValueError(
                f"ordered keys run one job at a time: key_concurrency must be 1, got {self.key_concurrency}")
        if self.per is not None and self.rate is None:
            raise ValueError("per needs a rate")
        if self.key_per is not None and self.key_rate is None:
            raise ValueError("key_per needs a key_rate")
        if self.key_rate is not None and self.key_concurrency is None and not self.ordered:
            raise ValueError("a per-key rate needs key_concurrency (or ordered=True)")
        if all(getattr(self, n) is None for n in LIMIT_NAMES) and not self.ordered:
            raise ValueError("FlowLimits() declares no limit (concurrency, key_concurrency, ordered, rate, key_rate)")

    def wanted(self) -> dict[str, Any]:
        """The queue's flow-control columns while these limits are in force (q.configure's defaults filled in)."""
        second = timedelta(seconds=1)
        return {"concurrency": self.concurrency,
                "key_concurrency": 1 if self.ordered and self.key_concurrency is None else self.key_concurrency,
                "ordered": self.ordered, "rate": self.rate, "per": self.per or (second if self.rate else None),
                "key_rate": self.key_rate, "key_per": self.key_per or (second if self.key_rate else None)}


@dataclasses.dataclass(frozen=True)
class LimitPlan:
    """What :meth:`App.sync_limits` does to one queue: q.configure's arguments (set and unlimit), and
    the limits the database has but the code does not declare (kept, with a warning, unless pruned)."""

    queue: str
    changes: dict[str, Any]
    undeclared: list[str]

    @classmethod
    def make(cls, queue: str, declared: FlowLimits | None, current: QueueLimits | None, prune: bool) -> LimitPlan:
        have: dict[str, Any] = {n: getattr(current, n, None) for n in ("concurrency", "key_concurrency", "rate", "per",
                                                                         "key_rate", "key_per")}
        have["ordered"] = bool(current is not None and current.ordered)
        want = declared.wanted() if declared is not None else dict.fromkeys(have)
        changes = {n: want[n] for n in ("concurrency", "key_concurrency", "rate", "per", "key_rate", "key_per")
                   if want[n] is not None and want[n] != have[n]}
        if want["key_concurrency"] is not None and bool(want["ordered"]) != have["ordered"]:
            changes["ordered"] = bool(want["ordered"])  # ordered is part of a declared key limit
        undeclared = [n for n in LIMIT_NAMES if have[n] is not None and want[n] is None]
        if prune and undeclared:
            changes["unlimit"] = list(undeclared)
        return cls(queue, changes, [] if prune else undeclared)

    def warning(self, current: QueueLimits | None) -> str:
        shown = ", ".join(f"{n}={getattr(current, n)}" for n in self.undeclared)
        flags = " ".join(f"--unlimit {n}" for n in self.undeclared)
        return (f"queue {self.queue} has limits in the database that the code does not declare ({shown}); they stay:"
                f" declare them in @app.task(limits=...), remove them (pgq configure {self.queue} {flags}),"
                " or make the App with prune_limits=True")


@dataclasses.dataclass(frozen=True)
class Periodic:
    """A schedule declared in code (:meth:`App.periodic`): what ``q.schedule`` is called with."""

    name: str
    queue: str
    cron: str | None = None
    every: timedelta | None = None
    payload: dict[str, Any] = dataclasses.field(default_factory=dict)
    timezone: str = "UTC"
    priority: int = 0
    max_attempts: int | None = None
    catch_up: CatchUp = CatchUp.LATEST

    def write(self, conn: psycopg.Connection[Any]) -> None:
        _client.schedule(conn, self.name, queue=self.queue, cron=self.cron, every=self.every, payload=self.payload,
                         timezone=self.timezone, priority=self.priority, max_attempts=self.max_attempts,
                         catch_up=self.catch_up)

    async def write_async(self, conn: psycopg.AsyncConnection[Any]) -> None:
        await aio.schedule(conn, self.name, queue=self.queue, cron=self.cron, every=self.every, payload=self.payload,
                           timezone=self.timezone, priority=self.priority, max_attempts=self.max_attempts,
                           catch_up=self.catch_up)


class App:
    """A set of tasks served by one worker, with worker options shared by all of them.

    options: :class:`~pgq_client.worker.WorkerOptions` for the App's worker
    (database_url, poll_interval, ...). ``concurrency``, ``batch_size`` and
    ``lease`` are per task: every task gets the App's unless it sets its own.
    Precedence (:class:`~pgq_client.worker.options.TaskSettings`): the
    worker's arguments (``pgq worker`` flags, :meth:`worker` keywords) >
    ``@app.task(...)`` > ``App(...)`` > the default.
    prune_schedules: when a worker starts, also delete schedules into this
    App's queues that the code no longer declares (off by default: removing a
    declaration then leaves the schedule in the database).
    schedules_at_startup: whether a worker writes the declared schedules when
    it starts (that needs pgq_admin); False for workers that run as
    pgq_worker while a deploy step calls :meth:`sync_schedules`.
    prune_limits, limits_at_startup: the same for the queue limits declared
    with ``@app.task(limits=FlowLimits(...))`` (:meth:`sync_limits`): a limit the
    database has but the code does not declare is logged as a warning and
    kept, unless prune_limits=True removes it.
    databases: the App's queues live in several databases (instead of
    database_url): a list of URLs (every queue in each) or a queue -> URL map
    (each queue in its own); the worker is then a group with one worker per
    database (:class:`~pgq_client.worker.WorkerGroup`; see
    ``docs/manual/several-databases.md``). A worker's own ``database_url`` or
    ``databases`` (``pgq worker --database-url``, :meth:`worker`) wins over it.
    """

    def __init__(self, *, prune_schedules: bool = False, schedules_at_startup: bool = True,
                 prune_limits: bool = False, limits_at_startup: bool = True, databases: Databases | None = None,
                 **options: Any) -> None:
        WorkerOptions.build(**options)  # unknown or bad options fail here, not at start-up
        if databases is not None:
            from .worker._databases import plan

            if options.get("database_url"):
                raise ValueError("give database_url or databases, not both")
            plan(databases, list(databases) if isinstance(databases, Mapping) else [])  # a bad setting fails here
        self.databases = databases
        self.options = options
        self.prune_schedules = prune_schedules
        self.schedules_at_startup = schedules_at_startup
        self.prune_limits = prune_limits
        self.limits_at_startup = limits_at_startup
        self.tasks: dict[str, Task[Any]] = {}
        self.schedules: dict[str, Periodic] = {}
        self.startup_hooks: list[Callable[..., Any]] = []
        self.shutdown_hooks: list[Callable[..., Any]] = []

    def flow(self) -> JobGraph:
        """A new :class:`~pgq_client.graph.JobGraph`: add this App's tasks with ``after=`` edges, then
        ``enqueue(conn)`` the whole graph in one statement (``q.enqueue_flow``)."""
        return JobGraph()

    def task(self, queue: str | None = None, *, payload: type[P] | None = None, lease: timedelta | float | None = None,
             max_attempts: int | None = None, concurrency: int | None = None, priority: int = 0,
             batch_size: int | None = None, name: str | None = None,
             limits: FlowLimits | None = None) -> Callable[[Callable[..., Any]], Task[P]]:
        """Register a handler for a queue (default: the function's name) with its own settings.

        payload: a pydantic model (or callable) the payload is validated into;
        lease: the claim lease (seconds or timedelta; default the queue's);
        max_attempts, priority: what enqueue uses unless told otherwise;
        concurrency: this task's handler slots (default the worker's);
        batch_size: most jobs per claim (default automatic).
        concurrency, batch_size, lease: this task's own, over the App's (see
        :class:`~pgq_client.worker.options.TaskSettings` for the precedence).
        limits: the queue's flow-control limits across all workers
        (:class:`FlowLimits`), written when a worker starts (:meth:`sync_limits`).
        """
        if limits is not None and not isinstance(limits, FlowLimits):
            raise TypeError(f"limits must be a pgq_client.FlowLimits, got {type(limits).__name__}")
        if max_attempts is not None and max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        if concurrency is not None and concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if isinstance(lease, (int, float)):
            lease = timedelta(seconds=lease)

        def register(fn: Callable[..., Any]) -> Task[P]:
            q = check_queue_name(queue or getattr(fn, "__name__", ""))
            if q in self.tasks:
                raise ValueError(f"queue {q!r} already has a task: {self.tasks[q].name}")
            task: Task[P] = Task(fn, queue=q, payload=payload, lease=lease, max_attempts=max_attempts,
                                 concurrency=concurrency, priority=priority, batch_size=batch_size,
                                 name=str(name or getattr(fn, "__qualname__", q)))
            task.defaults = self.options
            task.limits = limits
            self.tasks[q] = task
            return task

        return register

    def periodic(self, *, cron: str | None = None, every: timedelta | float | None = None, name: str | None = None,
                 payload: Any = None, timezone: str = "UTC", priority: int | None = None,
                 max_attempts: int | None = None,
                 catch_up: CatchUp | str = CatchUp.LATEST) -> Callable[[Task[P]], Task[P]]:
        """Decorator over :meth:`task`: enqueue a job for the task on a cron or interval schedule.

        cron: 5 fields or a macro (@daily ...), read as wall-clock time in
        timezone (an IANA name); every: an interval (seconds or timedelta,
        whole seconds). name: the schedule's name (default: the task's queue;
        give one when a task has several schedules). payload: a dict (or
        pydantic model/dataclass) each job gets, plus "schedule" and "slot".
        priority, max_attempts: default the task's. catch_up: latest, all or
        none (see the README). Written to the database when a worker starts.
        """
        if (cron is None) == (every is None):
            raise ValueError("give exactly one of cron= and every=")
        if isinstance(every, (int, float)):
            every = timedelta(seconds=every)
        if catch_up not in {c.value for c in CatchUp}:
            raise ValueError(f"catch_up must be latest, all or none, got {catch_up!r}")
        policy = CatchUp(catch_up)
        data = encode(payload) if payload is not None else {}
        if not isinstance(data, dict):
            raise ValueError(f"a schedule's payload must be a dict (a JSON object), got {type(data).__name__}")

        def register(task: Task[P]) -> Task[P]:
            if not isinstance(task, Task):
                raise TypeError("@app.periodic goes above @app.task(...): it schedules a registered task")
            key = name or task.queue
            if key in self.schedules:
                raise ValueError(f"a schedule named {key!r} is declared already; give this one a name=")
            self.schedules[key] = Periodic(
                name=key, queue=task.queue, cron=cron, every=every, payload=data, timezone=timezone,
                priority=task.priority if priority is None else priority,
                max_attempts=max_attempts or task.max_attempts, catch_up=policy)
            return task

        return register

    def sync_schedules(self, conn: psycopg.Connection[Any], *, prune: bool | None = None,
                       queues: Collection[str] | None = None) -> list[str]:
        """Write the declared schedules (create or replace; unchanged ones write nothing), in one transaction.

        prune (default: the App's prune_schedules) also deletes schedules into
        this App's queues that are no longer declared. Returns the names deleted.
        queues: only the schedules into these queues (the queues that live in
        this database, when the App's queues are spread over several).
        Needs pgq_admin. A worker calls this at start-up.
        """
        with conn.transaction():
            # Sorted: workers starting together lock the rows in one order.
            for periodic in self._declared(queues):
                periodic.write(conn)
            gone = self._stale(_client.schedules(conn), prune, queues)
            for stale in gone:
                _client.unschedule(conn, stale)
        return gone

    async def sync_schedules_async(self, conn: psycopg.AsyncConnection[Any], *, prune: bool | None = None,
                                   queues: Collection[str] | None = None) -> list[str]:
        """:meth:`sync_schedules` on an AsyncConnection."""
        async with conn.transaction():
            for periodic in self._declared(queues):
                await periodic.write_async(conn)
            gone = self._stale(await aio.schedules(conn), prune, queues)
            for stale in gone:
                await aio.unschedule(conn, stale)
        return gone

    def _declared(self, queues: Collection[str] | None) -> list[Periodic]:
        return sorted((p for p in self.schedules.values() if queues is None or p.queue in queues), key=lambda p: p.name)

    def _stale(self, existing: Sequence[Any], prune: bool | None, queues: Collection[str] | None = None) -> list[str]:
        if not (self.prune_schedules if prune is None else prune):
            return []
        mine = self.tasks if queues is None else queues
        return sorted(s.name for s in existing if s.queue in mine and s.name not in self.schedules)

    def sync_limits(self, conn: psycopg.Connection[Any], *, prune: bool | None = None,
                    queues: Collection[str] | None = None) -> list[LimitPlan]:
        """Write the queue limits the tasks declare (``@app.task(limits=...)``), in one transaction.

        Idempotent: a queue whose limits are as declared gets no write. A limit the database has
        for one of this App's queues that the code does not declare is kept and logged as a
        warning, unless prune (default: the App's prune_limits) removes it. Returns what was
        planned per queue. queues: only these queues (as for :meth:`sync_schedules`).
        Needs pgq_admin (``q.configure``). A worker calls this at start-up.
        """
        with conn.transaction():
            current = {row.queue: row for row in _client.limits(conn)}
            plans = self._limit_plans(current, prune, queues)
            for plan in plans:
                if plan.changes:
                    _client.configure(conn, plan.queue, **plan.changes)
        self._warn_undeclared(plans, current)
        return plans

    async def sync_limits_async(self, conn: psycopg.AsyncConnection[Any], *, prune: bool | None = None,
                                queues: Collection[str] | None = None) -> list[LimitPlan]:
        """:meth:`sync_limits` on an AsyncConnection."""
        async with conn.transaction():
            current = {row.queue: row for row in await aio.limits(conn)}
            plans = self._limit_plans(current, prune, queues)
            for plan in plans:
                if plan.changes:
                    await aio.configure(conn, plan.queue, **plan.changes)
        self._warn_undeclared(plans, current)
        return plans

    def _limit_plans(self, current: Mapping[str, QueueLimits], prune: bool | None,
                     queues: Collection[str] | None = None) -> list[LimitPlan]:
        pruning = self.prune_limits if prune is None else prune
        mine = [q for q in self.tasks if queues is None or q in queues]
        # Sorted: workers starting together lock the queue rows in one order.
        return [LimitPlan.make(q, self.tasks[q].limits, current.get(q), pruning) for q in sorted(mine)]

    def _warn_undeclared(self, plans: list[LimitPlan], current: Mapping[str, QueueLimits]) -> None:
        for plan in plans:
            if plan.undeclared:
                logging.getLogger("pgq.app").warning(plan.warning(current.get(plan.queue)))

    @property
    def _syncs_limits(self) -> bool:
        return self.limits_at_startup and (self.prune_limits or any(t.limits for t in self.tasks.values()))

    @property
    def _syncs_schedules(self) -> bool:
        return self.schedules_at_startup and bool(self.schedules or self.prune_schedules)

    def _sync_hook(self, conn: Any, queues: Collection[str] | None = None) -> Any:
        if isinstance(conn, psycopg.AsyncConnection):
            return self._sync_checked_async(conn, queues)
        try:
            if self._syncs_schedules:
                self.sync_schedules(conn, queues=queues)
            if self._syncs_limits:
                self.sync_limits(conn, queues=queues)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise self._needs_admin(exc) from exc
        return None

    async def _sync_checked_async(self, conn: psycopg.AsyncConnection[Any], queues: Collection[str] | None) -> None:
        try:
            if self._syncs_schedules:
                await self.sync_schedules_async(conn, queues=queues)
            if self._syncs_limits:
                await self.sync_limits_async(conn, queues=queues)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise self._needs_admin(exc) from exc

    def _needs_admin(self, exc: psycopg.Error) -> Exception:
        from .worker import StartupError

        what = " and ".join(w for w, on in (("schedules", self._syncs_schedules), ("queue limits", self._syncs_limits))
                            if on)
        flags = " and ".join(f for f, on in (("schedules_at_startup=False", self._syncs_schedules),
                                             ("limits_at_startup=False", self._syncs_limits)) if on)
        calls = " and ".join(c for c, on in (("app.sync_schedules(conn)", self._syncs_schedules),
                                             ("app.sync_limits(conn)", self._syncs_limits)) if on)
        return StartupError(
            f"this App declares {what}, and writing them at start-up needs pgq_admin ({exc.diag.message_primary}):"
            f" grant pgq_admin to the worker's role, or make the App with {flags} and call {calls} from a deploy"
            " step that has it")

    def on_startup(self, hook: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: call hook(conn) when a worker starts, after its checks, before its first claim."""
        self.startup_hooks.append(hook)
        return hook

    def on_shutdown(self, hook: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: call hook() when a worker has stopped claiming and recorded its last outcomes."""
        self.shutdown_hooks.append(hook)
        return hook

    @property
    def is_async(self) -> bool:
        """True if a task is a coroutine function: the worker is then an AsyncWorker (plain tasks run in threads)."""
        from .worker._handlers import is_async

        return any(is_async(t.fn) for t in self.tasks.values())

    def lanes(self, queues: Sequence[str] | None = None, **worker: Any) -> list[Lane]:
        """The worker's lanes: one per task (or per task of queues), with their effective settings;
        worker: the worker's own arguments (they win over the tasks' and the App's)."""
        chosen = self._chosen(queues)
        if not chosen:
            raise ValueError("this App has no tasks: decorate a function with @app.task(...)")
        return [t.lane(i, self.options, worker) for i, t in enumerate(chosen)]

    def _task(self, queue: str) -> Task[Any]:
        if queue not in self.tasks:
            raise ValueError(f"no task for queue {queue!r}; this App serves {', '.join(self.tasks) or 'nothing'}")
        return self.tasks[queue]

    def worker(self, *, queues: Sequence[str] | None = None, databases: Databases | None = None,
               **options: Any) -> Worker | AsyncWorker | WorkerGroup | AsyncWorkerGroup:
        """A worker for every task (or those of queues), threads or asyncio as :attr:`is_async` says.

        With several databases (databases=, else the App's unless database_url
        is given here) a :class:`~pgq_client.worker.WorkerGroup` (or
        :class:`~pgq_client.worker.AsyncWorkerGroup`): one worker per database,
        run and stopped as one.
        """
        from .worker import AsyncWorker, AsyncWorkerGroup, Worker, WorkerGroup

        async_ = self.is_async
        chosen = self._databases(databases, options)
        if chosen is not None:
            group: WorkerGroup | AsyncWorkerGroup = self._group(
                AsyncWorkerGroup if async_ else WorkerGroup, AsyncWorker if async_ else Worker, chosen, queues, options)
            return group
        made: Worker | AsyncWorker = self._make(AsyncWorker if async_ else Worker, queues, options)
        return made

    def _databases(self, databases: Databases | None, options: Mapping[str, Any]) -> Databases | None:
        """The databases a worker serves: the worker's own setting (database_url or databases) > the App's."""
        if databases is not None and options.get("database_url"):
            raise ValueError("give database_url or databases, not both")
        if databases is not None:
            return databases
        return None if options.get("database_url") else self.databases

    def _group(self, group_cls: Any, cls: Any, databases: Databases, queues: Sequence[str] | None,
               options: dict[str, Any]) -> Any:
        from .worker._databases import plan

        served = [t.queue for t in self._chosen(queues)]
        name = options.get("name") or self.options.get("name") or WorkerOptions.build().name
        if options.get("metrics_port") is not None or self.options.get("metrics_port") is not None:
            raise ValueError("metrics_port serves one worker's metrics: with several databases run"
                             " `pgq metrics` per database instead")
        workers = {}
        for db in plan(databases, served):
            # The map form: this database's schedules and limits are those of the queues that live there.
            here = ([q for q in self.tasks if databases.get(q) == db.url] if isinstance(databases, Mapping)
                    else None)
            workers[db.label] = self._make(cls, db.queues or served,
                                           {**options, "database_url": db.url, "name": f"{name}/{db.label}"}, here)
        return group_cls(workers)

    def _chosen(self, queues: Sequence[str] | None) -> list[Task[Any]]:
        return list(self.tasks.values()) if not queues else [self._task(q) for q in queues]

    def _make(self, cls: Any, queues: Sequence[str] | None, options: dict[str, Any],
              sync_queues: Collection[str] | None = None) -> Any:
        from .worker._async_worker import Hooks

        given = {k: v for k, v in options.items() if v is not None}
        base = WorkerOptions.build(**{**self.options, **given})  # checks the worker's arguments too
        lanes = self.lanes(queues, **{k: v for k, v in given.items() if k in TASK_SETTINGS})
        # The worker's total slots are the lanes'; its claim loops follow from each lane's batch size
        # (unless claim_loops is given), and its pool from both (WorkerOptions.pool_size).
        # batch_size and lease say the lanes' value when they share one (else None: per lane).
        opts = dataclasses.replace(
            base, concurrency=sum(lane.concurrency for lane in lanes),
            batch_size=_shared(lane.batch_size for lane in lanes), lease=_shared(lane.lease for lane in lanes),
            claim_loops=base.claim_loops or auto_loops((lane.concurrency, lane.batch_size) for lane in lanes))
        # Schedules and limits are written before the user's hooks and the first claim.
        syncs = self._syncs_schedules or self._syncs_limits
        hook = self._sync_hook if sync_queues is None else functools.partial(self._sync_hook, queues=sync_queues)
        startup = ([hook] if syncs else []) + list(self.startup_hooks)
        return cls.from_lanes(lanes, opts, hooks=Hooks(startup, list(self.shutdown_hooks)))

    def run_worker(self, *, queues: Sequence[str] | None = None, databases: Databases | None = None,
                   **options: Any) -> None:
        """Run a worker for the tasks until SIGTERM/SIGINT (asyncio.run when a task is async)."""
        run(self.worker(queues=queues, databases=databases, **options))

    async def run_worker_async(self, *, queues: Sequence[str] | None = None, databases: Databases | None = None,
                               **options: Any) -> None:
        """Run an AsyncWorker (or AsyncWorkerGroup, several databases) for the tasks in the running event
        loop until stopped."""
        from .worker import AsyncWorker, AsyncWorkerGroup

        chosen = self._databases(databases, options)
        worker: AsyncWorker | AsyncWorkerGroup = (
            self._group(AsyncWorkerGroup, AsyncWorker, chosen, queues, options) if chosen is not None
            else self._make(AsyncWorker, queues, options))
        await worker.run()


def _shared(values: Any) -> Any:
    distinct = set(values)
    return distinct.pop() if len(distinct) == 1 else None


def run(worker: Worker | AsyncWorker | WorkerGroup | AsyncWorkerGroup) -> None:
    """Run a worker (or a group of them) to its end from sync code (asyncio.run for the async ones)."""
    from .worker import AsyncWorker, AsyncWorkerGroup

    if isinstance(worker, (AsyncWorker, AsyncWorkerGroup)):
        asyncio.run(worker.run())
    else:
        worker.run()
