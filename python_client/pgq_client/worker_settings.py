"""The worker's settings, checked once, shared by the threaded and the asyncio worker."""

from __future__ import annotations

import math
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

# Claim loops when both batch_size and claim_loops are left automatic: enough
# rounds in flight for their commits to overlap, few enough that claims stay large.
AUTO_LOOPS = 4
# With automatic batch sizing, one claim asks for at most this many times the
# concurrency: rounds of no-op jobs measured ~25k jobs/s at 5x, ~40k at 20x
# (2 cores, concurrency 10); per-round costs (a commit, ~0.3 ms of CPU on
# each side) dominate small rounds.
AUTO_CLAIM_FACTOR = 20


@dataclass(frozen=True)
class WorkerSettings:
    """How a worker claims and runs jobs. See :class:`pgq_client.Worker` for the meaning of each."""

    queues: tuple[str, ...]
    database_url: str = ""
    concurrency: int = 10
    batch_size: int | None = None
    claim_loops: int | None = None
    lease: timedelta | None = None
    poll_interval: float = 1.0
    listen: bool = True
    pgbouncer: bool = False
    grace_period: float = 20.0
    reap_interval: float = 1.0
    name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    connect_kwargs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, queues: str | Sequence[str], **options: Any) -> WorkerSettings:
        names = (queues,) if isinstance(queues, str) else tuple(queues)
        options = {k: v for k, v in options.items() if v is not None or k in ("batch_size", "claim_loops", "lease")}
        if not options.get("database_url"):
            options["database_url"] = os.environ.get("DATABASE_URL", "")
        lease = options.get("lease")
        if isinstance(lease, (int, float)):
            options["lease"] = timedelta(seconds=lease)
        settings = cls(queues=names, **options)
        settings.check()
        return settings

    def check(self) -> None:
        if not self.queues or len(set(self.queues)) != len(self.queues) or not all(self.queues):
            raise ValueError(f"queues must be one or more distinct names, got {list(self.queues)}")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.batch_size is not None and not 1 <= self.batch_size <= 1000:
            raise ValueError(f"batch_size must be between 1 and 1000, got {self.batch_size}")
        if self.claim_loops is not None and not 1 <= self.claim_loops <= 1000:
            raise ValueError(f"claim_loops must be between 1 and 1000, got {self.claim_loops}")
        if self.lease is not None and self.lease.total_seconds() < 1:
            raise ValueError(f"lease must be at least 1 second, got {self.lease}")
        if self.poll_interval <= 0 or self.reap_interval <= 0 or self.grace_period < 0:
            raise ValueError("poll_interval and reap_interval must be positive and grace_period not negative")

    @property
    def auto_batch(self) -> bool:
        """batch_size not given: the worker sizes its claims itself (see Ledger.capacity)."""
        return self.batch_size is None

    @property
    def max_prefetch(self) -> int:
        """Most claimed jobs that may wait for a free handler.

        batch_size given: batch_size - concurrency (the worker holds at most
        batch_size jobs, or the concurrency if larger). Automatic: each claim
        loop may have a claim of up to 20x the concurrency (at most 1000) on
        its way, so the worker holds at most loops x that; Ledger.capacity
        sizes the prefetch by Little's law below this bound, so only jobs much
        shorter than a round trip get near it.
        """
        if self.batch_size is None:
            return max(0, self.loops * self.auto_claim_limit - self.concurrency)
        return max(0, self.batch_size - self.concurrency)

    @property
    def auto_claim_limit(self) -> int:
        """With automatic batch sizing, the most jobs one claim asks for: 20x the concurrency, at most 1000."""
        return min(AUTO_CLAIM_FACTOR * self.concurrency, 1000)

    @property
    def loops(self) -> int:
        """Claim loops that keep rounds in flight at once, each on its own pooled connection.

        claim_loops if given, else ceil(concurrency / batch_size) with batch_size
        given (every loop's claim can be a full batch), else min(AUTO_LOOPS,
        concurrency); never more than the concurrency (a loop claims at least one job).
        """
        if self.claim_loops is not None:
            wanted = self.claim_loops
        elif self.batch_size is not None:
            wanted = math.ceil(self.concurrency / self.batch_size)
        else:
            wanted = AUTO_LOOPS
        return max(1, min(wanted, self.concurrency))

    @property
    def uses_listener(self) -> bool:
        """A dedicated direct connection holds the liveness key (and LISTENs): not behind PgBouncer."""
        return not self.pgbouncer

    def connection_kwargs(self, role: str) -> dict[str, Any]:
        """psycopg.connect keyword arguments for the pool ("worker") or the listener ("listener")."""
        kwargs: dict[str, Any] = {"autocommit": True, "application_name": f"pgq-{role}:{self.name}"[:63]}
        if self.pgbouncer:
            # Transaction pooling: no named prepared statements, no session state.
            kwargs["prepare_threshold"] = None
        kwargs.update(self.connect_kwargs)
        return kwargs

    @property
    def pool_size(self) -> int:
        """One per claim loop, the heartbeat/reaper loop, and one per handler that asks for a connection."""
        return self.concurrency + self.loops + 1
