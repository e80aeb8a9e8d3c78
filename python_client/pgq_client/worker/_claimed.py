"""A claimed job as the worker keeps it: the handler's :class:`~pgq_client.JobContext` plus the worker's books.

The handler is given this object as its JobContext; the fields below are the
worker's alone (the ledger's and the loops'), so JobContext, what handlers are
documented to see, does not carry them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..context import PROGRESS_DELAY, JobContext
from ..records import Job


class ClaimedJob(JobContext):
    """One job this worker holds: its lease and when its next heartbeat is due, the liveness key its claim
    carries, its lane, and whether its handler is done or the worker gave it back."""

    __slots__ = ("lease_seconds", "next_beat", "owner", "lane", "started", "finished", "given_back")

    def __init__(self, job: Job, lease_seconds: float, owner: int, lane: int = 0,
                 connection: Callable[[], Any] | None = None) -> None:
        super().__init__(job, connection)
        self.lease_seconds = lease_seconds  # heartbeats go every third of it
        self.next_beat = time.monotonic() + lease_seconds / 3
        self.owner = owner  # the liveness key the claim was made (or adopted) with; 0: lease only
        self.lane = lane  # the worker's lane (task) this job belongs to
        self.started = 0.0  # perf_counter() when its handler started
        self.finished = False  # the handler is done; its outcome may not be recorded yet
        self.given_back = False  # released by the worker (counted as finished then)

    def _progress_reported(self) -> None:
        # ctx.progress(): the next heartbeat, which carries the value, is due within PROGRESS_DELAY.
        self.next_beat = min(self.next_beat, time.monotonic() + PROGRESS_DELAY)
