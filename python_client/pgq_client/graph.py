"""A small builder for a graph of jobs enqueued in one statement (``q.enqueue_flow``).

    graph = app.flow()
    fetch = graph.add(fetch_page, {"url": u})
    parse = graph.add(parse_page, {"url": u}, after=[fetch])
    graph.add(report, {}, after=[parse], on_parent_failure="run")
    ids = graph.enqueue(conn)          # {ref: job id}, in the caller's transaction

"Flow" here is a graph of jobs (workflows); flow *control* (:class:`pgq_client.FlowLimits`) is
about concurrency and rate limits and is unrelated.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import psycopg

from . import _client, aio

if TYPE_CHECKING:
    from .app import Task

POLICIES = ("cancel", "run", "hold")


class JobGraph:
    """Jobs and the edges between them, enqueued all or nothing by :meth:`enqueue`.

    :meth:`add` returns the job's ref (a string, local to the graph); ``after`` takes refs of
    this graph and ids (ints) of jobs that already exist. Cycles are refused by the database
    (SQLSTATE 22023) and nothing is written.
    """

    def __init__(self) -> None:
        self.jobs: list[dict[str, Any]] = []
        self._refs: set[str] = set()

    def add(self, task: Task[Any] | str, payload: Any, *, after: Sequence[str | int] = (), ref: str | None = None,
            on_parent_failure: str = "cancel", run_at: datetime | None = None, priority: int | None = None,
            max_attempts: int | None = None, concurrency_key: str | None = None, batch: int | None = None) -> str:
        """Add a job for a task (or a queue name) that runs after the jobs in ``after``; returns its ref."""
        from .app import encode

        if on_parent_failure not in POLICIES:
            raise ValueError(f"on_parent_failure must be one of {', '.join(POLICIES)}, got {on_parent_failure!r}")
        ref = ref if ref is not None else str(len(self.jobs) + 1)
        if ref in self._refs:
            raise ValueError(f"ref {ref!r} is already in this graph")
        for parent in after:
            if isinstance(parent, str) and parent not in self._refs:
                raise ValueError(f"after names {parent!r}, which is not a ref added before")
        job: dict[str, Any] = {"ref": ref, "queue": task if isinstance(task, str) else task.queue,
                               "payload": encode(payload), "after": list(after),
                               "on_parent_failure": on_parent_failure}
        if not isinstance(task, str):
            priority = task.priority if priority is None else priority
            max_attempts = max_attempts or task.max_attempts
        optional = {"run_at": run_at.isoformat() if run_at else None, "priority": priority,
                    "max_attempts": max_attempts, "concurrency_key": concurrency_key, "batch": batch}
        job.update({k: v for k, v in optional.items() if v is not None})
        self.jobs.append(job)
        self._refs.add(ref)
        return ref

    def enqueue(self, conn: psycopg.Connection[Any]) -> dict[str, int]:
        """Enqueue the whole graph in the connection's transaction; returns {ref: job id}."""
        return _client.enqueue_flow(conn, self.jobs)

    async def enqueue_async(self, conn: psycopg.AsyncConnection[Any]) -> dict[str, int]:
        """:meth:`enqueue` on an AsyncConnection."""
        return await aio.enqueue_flow(conn, self.jobs)
