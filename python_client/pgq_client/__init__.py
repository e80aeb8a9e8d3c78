"""pgq_client: a thin Python client for pgq, the job queue in PostgreSQL.

    import psycopg
    from pgq_client import claim, complete, enqueue

    with psycopg.connect(url, autocommit=True) as conn:
        enqueue(conn, "emails", {"to": "ada@example.com"})
        for job in claim(conn, "emails", 10):
            send(job.payload)
            complete(conn, job.id, job.token)

The layers, top to bottom:

* this module: plain functions that take your psycopg connection first and
  never commit, pool or retry, and the records they return. Importing it
  needs psycopg only. ``pgq_client.aio`` has the same functions for
  AsyncConnection (the sync ones are generated from them).
* ``pgq_client.App`` (``pgq_client.app``): the task registry, typed enqueue
  helpers; psycopg only until a worker is made.
* ``pgq_client.worker``: the worker runtime (``Worker``, ``AsyncWorker``;
  needs psycopg_pool). ``Worker``, ``AsyncWorker`` and ``StartupError`` are
  importable from here too, lazily: ``import pgq_client`` does not import
  psycopg_pool.
* ``pgq_client.cli``: the ``pgq`` command (typer, rich, alembic).
* ``pgq_client.testing``: helpers for your tests (a migrated database, run
  queued jobs inline).
* ``pgq_client.payloads``: how payloads become JSON (datetime, Decimal,
  UUID, ...; ``payloads.register(MyType, encoder)`` for your own).
* ``pgq_client.sqlalchemy``: enqueue through a Session/AsyncSession.
* ``pgq_client.migrations``: the Alembic migrations this package carries
  (``upgrade``, ``downgrade``, ``head``, ``version_location()`` for your own
  Alembic; the ``migrations`` extra).

``pgq_client.__version__`` is the package's version (``pgq --version`` also
prints the schema revision it installs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._client import (
    cancel,
    cancel_jobs,
    claim,
    complete,
    complete_and_claim,
    complete_many,
    configure,
    delete_queue,
    enqueue,
    enqueue_many,
    explain,
    fail,
    fail_many,
    health,
    heartbeat,
    heartbeat_many,
    job_page,
    jobs,
    limits,
    listen,
    pause,
    pause_schedule,
    purge,
    reap,
    release,
    release_many,
    resume,
    resume_schedule,
    retry,
    retry_dead,
    schedule,
    schedules,
    session_key,
    stats,
    throughput,
    throughput_totals,
    unschedule,
)
from ._queries import CHANNEL
from ._version import __version__
from .app import App, FlowLimits, Periodic, Task
from .context import JobCancelled, JobContext, JobLost
from .records import (
    BeatStatus,
    BulkResult,
    CatchUp,
    FailStatus,
    HealthCheck,
    Job,
    JobInfo,
    JobPageRow,
    JobState,
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

if TYPE_CHECKING:
    from .worker import AsyncWorker, StartupError, Worker, WorkerOptions

__all__ = [
    "CHANNEL",
    "App",
    "AsyncWorker",
    "BeatStatus",
    "BulkResult",
    "CatchUp",
    "FailStatus",
    "FlowLimits",
    "HealthCheck",
    "Job",
    "JobCancelled",
    "JobContext",
    "JobInfo",
    "JobPageRow",
    "JobLost",
    "JobState",
    "Limit",
    "Outcome",
    "Periodic",
    "QueueLimits",
    "QueueSettings",
    "QueueStats",
    "Reason",
    "ScheduleInfo",
    "StartupError",
    "Task",
    "ThroughputBucket",
    "ThroughputTotal",
    "Worker",
    "WorkerOptions",
    "__version__",
    "cancel",
    "cancel_jobs",
    "claim",
    "complete",
    "complete_and_claim",
    "complete_many",
    "configure",
    "delete_queue",
    "enqueue",
    "enqueue_many",
    "explain",
    "fail",
    "fail_many",
    "health",
    "heartbeat",
    "heartbeat_many",
    "job_page",
    "jobs",
    "limits",
    "listen",
    "pause",
    "pause_schedule",
    "purge",
    "reap",
    "release",
    "release_many",
    "resume",
    "resume_schedule",
    "retry",
    "retry_dead",
    "schedule",
    "schedules",
    "session_key",
    "stats",
    "throughput",
    "throughput_totals",
    "unschedule",
]

_WORKER_NAMES = ("AsyncWorker", "StartupError", "Worker", "WorkerOptions")


def __getattr__(name: str) -> Any:
    # The worker runtime needs psycopg_pool: imported on first use, not by `import pgq_client`.
    if name in _WORKER_NAMES:
        from . import worker

        return getattr(worker, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
