"""What the worker tells its metrics, and the observer that listens when metrics are off (it does nothing).

The worker calls these hooks at a few places only, never once per job on its
own: the ledger tallies a round's outcomes and hands them over in one call
(:meth:`Observer.outcomes`), claim rounds and reaps are timed where they are
sent, and gauges (jobs held and running, rounds in flight) are read from the
ledger when they are scraped, so they cost nothing between scrapes. With
metrics off (the default) the ledger checks :attr:`Observer.enabled` once per
round and does no tallying at all.

The Prometheus observer (``_prometheus.py``) is imported only when a worker
is given ``metrics_port``; this module needs nothing beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

# What happened to a job whose handler finished, as the database answered.
OutcomeName = Literal["completed", "retry", "dead", "lost"]


class Observer:
    """The worker's metrics hooks; this base class records nothing."""

    enabled = False

    def claimed(self, queue: str, asked: int, got: int, seconds: float) -> None:
        """A round trip that carried a claim came back (``seconds``: the whole round trip)."""

    def outcomes(self, tally: Iterable[tuple[str, OutcomeName, float]]) -> None:
        """What a round recorded: (queue, outcome, handler seconds) per job."""

    def lost(self, queue: str) -> None:
        """A heartbeat said a claim was lost (reaped or taken over)."""

    def reaped(self, count: int, seconds: float) -> None:
        """One of this worker's turns at ``q.reap`` returned ``count`` jobs."""

    def event(self, name: str) -> None:
        """A worker event (the log events of :mod:`pgq_client.worker.events`) was emitted."""

    def close(self) -> None:
        """The worker stopped: stop serving."""


NOTHING = Observer()
