"""pgq_client: a thin Python client for pgq, the job queue in PostgreSQL.

    import psycopg
    from pgq_client import claim, complete, enqueue

    with psycopg.connect(url, autocommit=True) as conn:
        enqueue(conn, "emails", {"to": "ada@example.com"})
        for job in claim(conn, "emails", 10):
            send(job.payload)
            complete(conn, job.id, job.token)

Every function takes your psycopg connection first and never commits, pools
or retries. ``pgq_client.aio`` has the same functions for AsyncConnection.
"""

from .calls import (
    cancel,
    claim,
    complete,
    complete_and_claim,
    complete_many,
    enqueue,
    enqueue_many,
    fail,
    fail_many,
    heartbeat,
    heartbeat_many,
    jobs,
    listen,
    pause,
    reap,
    release,
    release_many,
    resume,
    retry,
    session_key,
    stats,
)
from .job_context import JobCancelled, JobContext, JobLost
from .jobs import Job, JobInfo, Outcome, QueueStats
from .statements import CHANNEL
from .worker import Worker

__all__ = [
    "CHANNEL",
    "Job",
    "JobCancelled",
    "JobInfo",
    "JobContext",
    "JobLost",
    "Outcome",
    "QueueStats",
    "Worker",
    "cancel",
    "claim",
    "complete",
    "complete_and_claim",
    "complete_many",
    "enqueue",
    "enqueue_many",
    "fail",
    "fail_many",
    "heartbeat",
    "heartbeat_many",
    "jobs",
    "listen",
    "pause",
    "reap",
    "release",
    "release_many",
    "resume",
    "retry",
    "session_key",
    "stats",
]
