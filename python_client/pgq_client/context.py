"""What a handler sees of the job it runs, and how the worker tells it to stop.

Importable with psycopg alone (no pool), so modules that declare handlers can
be imported by producers that only enqueue.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Final, Literal
from uuid import UUID

from .records import Job

RunStatus = Literal["running", "cancelled", "lost", "released"]
RUNNING: Final = "running"
CANCELLED: Final = "cancelled"  # q.cancel was called: stop, nothing will be recorded
LOST: Final = "lost"  # the claim was reaped or taken over: stop, the result will be refused
RELEASED: Final = "released"  # the worker shut down and gave the job back: stop


class JobCancelled(Exception):
    """Raised by :meth:`JobContext.check` when the job was cancelled (``q.cancel``)."""


class JobLost(Exception):
    """Raised by :meth:`JobContext.check` when the claim is no longer this worker's."""


_event_lock = threading.Lock()


class JobContext:
    """One claimed job as a handler sees it.

    ``payload`` is the (validated) payload; ``job`` the claim row. A handler
    that runs for long checks ``should_stop`` (or calls :meth:`check`, which
    raises :class:`JobCancelled`/:class:`JobLost`) now and then: the worker
    sets it when a heartbeat reports the job cancelled or lost, or when it
    gave the job back at shutdown. ``worker_stopping`` tells it that the
    worker is shutting down and waits for it (the grace period).
    """

    __slots__ = (
        "job", "payload", "status", "worker_stopping", "lease_seconds", "next_beat", "owner", "finished", "_event",
        "lane", "started", "_connection", "given_back",
    )

    def __init__(self, job: Job, lease_seconds: float, owner: int, lane: int = 0,
                 connection: Callable[[], Any] | None = None) -> None:
        self.job = job
        self.payload: Any = job.payload
        self.status: RunStatus = RUNNING
        self.worker_stopping = False
        self.lease_seconds = lease_seconds
        self.next_beat = time.monotonic() + lease_seconds / 3
        self.owner = owner
        self.finished = False  # the handler is done; its outcome may not be recorded yet
        self._event: threading.Event | None = None
        self.lane = lane  # the worker's lane (task) this job belongs to
        self.started = 0.0  # perf_counter() when its handler started
        self._connection = connection
        self.given_back = False  # released by the worker (counted as finished then)

    @property
    def id(self) -> int:
        return self.job.id

    @property
    def queue(self) -> str:
        return self.job.queue

    @property
    def attempt(self) -> int:
        return self.job.attempt

    @property
    def token(self) -> UUID:
        return self.job.token

    @property
    def lease_until(self) -> datetime:
        return self.job.lease_until

    @property
    def cancelled(self) -> bool:
        return self.status == CANCELLED

    @property
    def lost(self) -> bool:
        return self.status in (LOST, RELEASED)

    @property
    def should_stop(self) -> bool:
        """True once the result of this run can no longer count (cancelled, lost or released)."""
        return self.status != RUNNING

    def connection(self) -> AbstractContextManager[Any]:
        """A pooled connection of the worker for the handler's own queries (``with job.connection() as conn``).

        From the worker's pool, which holds a connection per handler for this
        (``async with`` in an async handler: the pool is an AsyncConnectionPool).
        The connection goes back to the pool when the block ends; a transaction
        opened in it is committed on a clean exit, rolled back on an error.
        """
        if self._connection is None:
            raise RuntimeError("this job has no worker pool (it is not run by a worker)")
        return self._connection()  # type: ignore[no-any-return]

    def check(self) -> None:
        """Raise JobCancelled or JobLost if the handler should stop."""
        if self.status == CANCELLED:
            raise JobCancelled(f"job {self.id} was cancelled")
        if self.status != RUNNING:
            raise JobLost(f"job {self.id} is no longer claimed by this worker ({self.status})")

    def wait(self, timeout: float) -> bool:
        """Sleep up to timeout seconds, waking early when the job should stop; returns should_stop."""
        with _event_lock:
            if self._event is None:
                self._event = threading.Event()
                if self.status != RUNNING:
                    self._event.set()
        self._event.wait(timeout)
        return self.should_stop

    def stop(self, status: RunStatus) -> bool:
        """Worker side: mark the job cancelled, lost or released. The first reason wins: True for that call only."""
        with _event_lock:  # a heartbeat answer and a refused result may race to say "lost"
            if self.status != RUNNING:
                return False
            self.status = status
            if self._event is not None:
                self._event.set()
            return True

    def __repr__(self) -> str:
        return f"JobContext(id={self.id}, queue={self.queue!r}, attempt={self.attempt}, status={self.status})"
