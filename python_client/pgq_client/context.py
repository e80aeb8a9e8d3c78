"""What a handler sees of the job it runs, and how the worker tells it to stop.

Importable with psycopg alone (no pool), so modules that declare handlers can
be imported by producers that only enqueue.
"""

from __future__ import annotations

import threading
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
PROGRESS_DELAY: Final = 0.5  # seconds: ctx.progress() makes the job's next heartbeat due this soon at the latest


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

    # The worker's own books on the job (heartbeat times, the claim's owner key, its lane, ...) are not
    # here: the worker runs handlers with a ClaimedJob (worker/_claimed.py), this class plus those.
    __slots__ = ("job", "payload", "status", "worker_stopping", "pending_progress", "_event", "_connection",
                 "_interrupt")

    def __init__(self, job: Job, connection: Callable[[], Any] | None = None) -> None:
        self.job = job
        self.payload: Any = job.payload
        self.status: RunStatus = RUNNING
        self.worker_stopping = False
        self.pending_progress: Any = None  # progress not sent yet (ctx.progress), or None
        self._event: threading.Event | None = None
        self._connection = connection
        self._interrupt: Callable[[], Any] | None = None  # cancels an async handler's task

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

    def progress(self, value: Any) -> None:
        """Report progress (any JSON-encodable value; the payload encoder applies).

        Sent with an early heartbeat within about a second (``PROGRESS_DELAY``), not at
        once: calls in between replace each other and cost no extra round trip. The latest
        value is stored with the claim (``q.heartbeat(progress => ...)``), kept across
        retries and read with ``q.result`` / :func:`pgq_client.result` (and ``q.explain``).
        Raises TypeError at once for a value the encoder cannot write.
        """
        from .payloads import dumps

        dumps(value)  # fail in the handler, not later in the heartbeat
        self.pending_progress = value
        self._progress_reported()

    def _progress_reported(self) -> None:
        """Worker side: a worker's job sends pending_progress with an early heartbeat (ClaimedJob); else nothing."""

    def interrupt_with(self, interrupt: Callable[[], Any]) -> None:
        """Worker side: what cancels the running handler when the job is cancelled (an async task's cancel)."""
        self._interrupt = interrupt
        if self.status == CANCELLED:
            interrupt()

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
            interrupt = self._interrupt if status == CANCELLED else None
        # Outside the lock: a task's cancel() only schedules the CancelledError. Only a
        # cancellation interrupts; a lost claim's handler stops when it checks, as before.
        if interrupt is not None:
            interrupt()
        return True

    def __repr__(self) -> str:
        return f"JobContext(id={self.id}, queue={self.queue!r}, attempt={self.attempt}, status={self.status})"
