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

from ._version import __version__

if TYPE_CHECKING:
    from ._client import (
        adopt,
        batch,
        cancel,
        cancel_jobs,
        claim,
        claim_explained,
        complete,
        complete_and_claim,
        complete_many,
        configure,
        create_batch,
        delete_queue,
        enqueue,
        enqueue_after,
        enqueue_flow,
        enqueue_many,
        explain,
        fail,
        fail_many,
        health,
        heartbeat,
        heartbeat_many,
        job_graph,
        job_page,
        jobs,
        limits,
        listen,
        parent_results,
        parents,
        pause,
        pause_schedule,
        purge,
        reap,
        release,
        release_many,
        result,
        results,
        resume,
        resume_schedule,
        retry,
        retry_dead,
        schedule,
        schedules,
        seal_batch,
        session_key,
        stats,
        throughput,
        throughput_totals,
        unblock,
        unschedule,
        wait_results,
    )
    from ._queries import CHANNEL
    from .app import App, FlowLimits, Periodic, Task
    from .context import JobCancelled, JobContext, JobLost
    from .records import (
        BatchInfo,
        BeatStatus,
        Blocked,
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
        UndecodablePayload,
    )
    from .worker import AsyncWorker, StartupError, Worker, WorkerOptions


__all__ = [
    "CHANNEL",
    "App",
    "AsyncWorker",
    "BeatStatus",
    "Blocked",
    "BulkResult",
    "CatchUp",
    "ClaimAnswer",
    "FailStatus",
    "FlowLimits",
    "HealthCheck",
    "Job",
    "JobCancelled",
    "JobContext",
    "JobInfo",
    "JobPageRow",
    "JobLost",
    "JobResult",
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
    "UndecodablePayload",
    "Worker",
    "WorkerOptions",
    "__version__",
    "adopt",
    "cancel",
    "cancel_jobs",
    "claim",
    "claim_explained",
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
    "result",
    "results",
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
    "wait_results",
    "parent_results",
    "enqueue_after",
    "enqueue_flow",
    "create_batch",
    "seal_batch",
    "batch",
    "parents",
    "job_graph",
    "unblock",
    "BatchInfo",
    "GraphEdge",
]

# What `import pgq_client` defines at once is its version only: every other name is imported on
# first use (PEP 562), so `pgq --help` and a producer that needs one function do not pay for all
# of psycopg, the records and the App up front. The worker's names need psycopg_pool.
_LAZY = {
    "App": ".app",
    "BeatStatus": ".records",
    "Blocked": ".records",
    "BatchInfo": ".records",
    "GraphEdge": ".records",
    "BulkResult": ".records",
    "CHANNEL": "._queries",
    "CatchUp": ".records",
    "ClaimAnswer": ".records",
    "FailStatus": ".records",
    "FlowLimits": ".app",
    "HealthCheck": ".records",
    "Job": ".records",
    "JobCancelled": ".context",
    "JobContext": ".context",
    "JobInfo": ".records",
    "JobLost": ".context",
    "JobPageRow": ".records",
    "JobResult": ".records",
    "JobState": ".records",
    "Limit": ".records",
    "Outcome": ".records",
    "Periodic": ".app",
    "QueueLimits": ".records",
    "QueueSettings": ".records",
    "QueueStats": ".records",
    "Reason": ".records",
    "ScheduleInfo": ".records",
    "Task": ".app",
    "ThroughputBucket": ".records",
    "ThroughputTotal": ".records",
    "UndecodablePayload": ".records",
    "adopt": "._client",
    "cancel": "._client",
    "cancel_jobs": "._client",
    "claim": "._client",
    "claim_explained": "._client",
    "complete": "._client",
    "complete_and_claim": "._client",
    "complete_many": "._client",
    "configure": "._client",
    "delete_queue": "._client",
    "enqueue": "._client",
    "enqueue_many": "._client",
    "explain": "._client",
    "fail": "._client",
    "fail_many": "._client",
    "health": "._client",
    "heartbeat": "._client",
    "heartbeat_many": "._client",
    "job_page": "._client",
    "jobs": "._client",
    "limits": "._client",
    "listen": "._client",
    "pause": "._client",
    "pause_schedule": "._client",
    "purge": "._client",
    "reap": "._client",
    "release": "._client",
    "release_many": "._client",
    "resume": "._client",
    "result": "._client",
    "results": "._client",
    "parent_results": "._client",
    "enqueue_after": "._client",
    "enqueue_flow": "._client",
    "create_batch": "._client",
    "seal_batch": "._client",
    "batch": "._client",
    "parents": "._client",
    "job_graph": "._client",
    "unblock": "._client",
    "resume_schedule": "._client",
    "retry": "._client",
    "retry_dead": "._client",
    "schedule": "._client",
    "schedules": "._client",
    "session_key": "._client",
    "stats": "._client",
    "throughput": "._client",
    "throughput_totals": "._client",
    "unschedule": "._client",
    "wait_results": "._client",
}
_WORKER_NAMES = ("AsyncWorker", "StartupError", "Worker", "WorkerOptions")
_SUBMODULES = ("aio", "app", "context", "graph", "exporter", "migrations", "observe", "payloads", "records",
               "sqlalchemy",
               "testing", "tracing", "worker", "cli", "dashboard")


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    if name in _WORKER_NAMES:
        from . import worker

        return getattr(worker, name)
    if name in _SUBMODULES:  # `import pgq_client; pgq_client.aio.enqueue(...)` as before
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
