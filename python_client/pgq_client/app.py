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
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import psycopg

from . import _client, aio
from .worker.options import WorkerOptions, check_queue_name

if TYPE_CHECKING:
    from .worker import AsyncWorker, Worker
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
        self.__doc__ = fn.__doc__
        self.__name__ = getattr(fn, "__name__", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Task({self.name!r}, queue={self.queue!r})"

    def enqueue(self, conn: psycopg.Connection[Any], payload: P, *, run_at: datetime | None = None,
                priority: int | None = None, max_attempts: int | None = None, dedup_key: str | None = None) -> int:
        """Add one job for this task in the connection's current transaction; returns its id."""
        return _client.enqueue(conn, self.queue, encode(payload), run_at=run_at,
                               priority=self.priority if priority is None else priority,
                               max_attempts=max_attempts or self.max_attempts, dedup_key=dedup_key)

    def enqueue_many(self, conn: psycopg.Connection[Any], payloads: Sequence[P], *, run_at: datetime | None = None,
                     priority: int | None = None, max_attempts: int | None = None,
                     dedup_keys: Sequence[str | None] | None = None, idempotency_key: str | None = None) -> list[int]:
        """Add one job per payload in one statement; ids in payload order (dedup_keys, idempotency_key:
        see :func:`pgq_client.enqueue_many`)."""
        return _client.enqueue_many(conn, self.queue, [encode(p) for p in payloads], run_at=run_at,
                                    priority=self.priority if priority is None else priority,
                                    max_attempts=max_attempts or self.max_attempts,
                                    dedup_keys=dedup_keys, idempotency_key=idempotency_key)

    async def enqueue_async(self, conn: psycopg.AsyncConnection[Any], payload: P, *, run_at: datetime | None = None,
                            priority: int | None = None, max_attempts: int | None = None,
                            dedup_key: str | None = None) -> int:
        """:meth:`enqueue` on an AsyncConnection."""
        return await aio.enqueue(conn, self.queue, encode(payload), run_at=run_at,
                                 priority=self.priority if priority is None else priority,
                                 max_attempts=max_attempts or self.max_attempts, dedup_key=dedup_key)

    async def enqueue_many_async(self, conn: psycopg.AsyncConnection[Any], payloads: Sequence[P], *,
                                 run_at: datetime | None = None, priority: int | None = None,
                                 max_attempts: int | None = None, dedup_keys: Sequence[str | None] | None = None,
                                 idempotency_key: str | None = None) -> list[int]:
        """:meth:`enqueue_many` on an AsyncConnection."""
        return await aio.enqueue_many(conn, self.queue, [encode(p) for p in payloads], run_at=run_at,
                                      priority=self.priority if priority is None else priority,
                                      max_attempts=max_attempts or self.max_attempts,
                                      dedup_keys=dedup_keys, idempotency_key=idempotency_key)

    def lane(self, index: int, default_concurrency: int) -> Lane:
        """The worker's per-queue settings for this task."""
        from .worker._lanes import Lane

        return Lane.make(index, self.fn, (self.queue,), concurrency=self.concurrency or default_concurrency,
                         batch_size=self.batch_size, lease=self.lease, payload=self.payload, name=self.name)


class App:
    """A set of tasks served by one worker, with worker options shared by all of them.

    options: defaults for :class:`~pgq_client.worker.WorkerOptions`
    (database_url, poll_interval, ...), overridable when the worker is made.
    ``concurrency`` is the default per task; a task's own wins.
    """

    def __init__(self, **options: Any) -> None:
        WorkerOptions.build(**options)  # unknown or bad options fail here, not at start-up
        self.options = options
        self.tasks: dict[str, Task[Any]] = {}
        self.startup_hooks: list[Callable[..., Any]] = []
        self.shutdown_hooks: list[Callable[..., Any]] = []

    def task(self, queue: str | None = None, *, payload: type[P] | None = None, lease: timedelta | float | None = None,
             max_attempts: int | None = None, concurrency: int | None = None, priority: int = 0,
             batch_size: int | None = None, name: str | None = None) -> Callable[[Callable[..., Any]], Task[P]]:
        """Register a handler for a queue (default: the function's name) with its own settings.

        payload: a pydantic model (or callable) the payload is validated into;
        lease: the claim lease (seconds or timedelta; default the queue's);
        max_attempts, priority: what enqueue uses unless told otherwise;
        concurrency: this task's handler slots (default the worker's);
        batch_size: most jobs per claim (default automatic).
        """
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
            self.tasks[q] = task
            return task

        return register

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

    def lanes(self, queues: Sequence[str] | None = None, default_concurrency: int = 10) -> list[Lane]:
        chosen = list(self.tasks.values()) if not queues else [self._task(q) for q in queues]
        if not chosen:
            raise ValueError("this App has no tasks: decorate a function with @app.task(...)")
        return [t.lane(i, default_concurrency) for i, t in enumerate(chosen)]

    def _task(self, queue: str) -> Task[Any]:
        if queue not in self.tasks:
            raise ValueError(f"no task for queue {queue!r}; this App serves {', '.join(self.tasks) or 'nothing'}")
        return self.tasks[queue]

    def worker(self, *, queues: Sequence[str] | None = None, **options: Any) -> Worker | AsyncWorker:
        """A worker for every task (or those of queues), threads or asyncio as :attr:`is_async` says."""
        from .worker import AsyncWorker, Worker

        made: Worker | AsyncWorker = self._make(AsyncWorker if self.is_async else Worker, queues, options)
        return made

    def _make(self, cls: Any, queues: Sequence[str] | None, options: dict[str, Any]) -> Any:
        from .worker._async_worker import Hooks

        merged = {**self.options, **{k: v for k, v in options.items() if v is not None}}
        base = WorkerOptions.build(**merged)
        lanes = self.lanes(queues, base.concurrency)
        # The worker's total slots are the lanes' (claim loops and the pool are sized from it).
        opts = dataclasses.replace(base, concurrency=sum(lane.concurrency for lane in lanes))
        return cls.from_lanes(lanes, opts, hooks=Hooks(list(self.startup_hooks), list(self.shutdown_hooks)))

    def run_worker(self, *, queues: Sequence[str] | None = None, **options: Any) -> None:
        """Run a worker for the tasks until SIGTERM/SIGINT (asyncio.run when a task is async)."""
        run(self.worker(queues=queues, **options))

    async def run_worker_async(self, *, queues: Sequence[str] | None = None, **options: Any) -> None:
        """Run an AsyncWorker for the tasks in the running event loop until stopped."""
        from .worker import AsyncWorker

        worker: AsyncWorker = self._make(AsyncWorker, queues, options)
        await worker.run()


def run(worker: Worker | AsyncWorker) -> None:
    """Run a worker to its end from sync code (asyncio.run for an AsyncWorker)."""
    from .worker import AsyncWorker

    if isinstance(worker, AsyncWorker):
        asyncio.run(worker.run())
    else:
        worker.run()
