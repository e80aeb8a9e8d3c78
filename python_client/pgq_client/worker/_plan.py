"""Which queue to claim from next: a queue is worth a claim while its last claim came back full,
after a NOTIFY named it, at every poll tick, and when a rate limit's next slot frees (defer)."""

from __future__ import annotations

import threading
from collections.abc import Collection


class ClaimPlan:
    """Per-queue "may have work" flags, fed by claims, notifications and the poll timer.

    A hint that arrives while a claim of the same queue is on its way wins
    over that claim's "came back short": the job behind the hint may have
    been committed after the claim looked.
    """

    def __init__(self, queues: tuple[str, ...]) -> None:
        self._queues = queues
        self._more = dict.fromkeys(queues, True)
        self._hints = dict.fromkeys(queues, 0)
        self._next = 0
        self._deferred: dict[str, float] = {}  # queue -> monotonic time its rate limit allows a start
        self._rechecked: set[str] = set()  # queues found full and looked at again since their last jobs
        self._lock = threading.Lock()

    def hint(self, queue: str | None = None) -> bool:
        """Mark one queue (None: all) as worth a claim; False if the queue is not ours."""
        with self._lock:
            names = self._queues if queue is None else ((queue,) if queue in self._more else ())
            for name in names:
                self._more[name] = True
                self._hints[name] += 1
            return bool(names)

    def pick(self, allowed: Collection[str] | None = None) -> tuple[str, int] | None:
        """The next queue worth a claim (round robin; only those in allowed) and its hint counter, or None."""
        with self._lock:
            n = len(self._queues)
            for i in range(n):
                name = self._queues[(self._next + i) % n]
                if self._more[name] and (allowed is None or name in allowed):
                    self._next = (self._next + i + 1) % n
                    return name, self._hints[name]
            return None

    def claimed(self, queue: str, asked: int, got: int, hints_then: int) -> None:
        """Record a claim's result: a full claim means more work; a short one means none, unless hinted since."""
        with self._lock:
            if got < asked and self._hints[queue] == hints_then:
                self._more[queue] = False
            if got:
                self._rechecked.discard(queue)

    def defer(self, queue: str, at: float) -> None:
        """A rate limit cut a claim of queue short: hint it again at monotonic time ``at``."""
        with self._lock:
            if queue in self._more:
                self._deferred[queue] = min(at, self._deferred.get(queue, at))

    def recheck(self, queue: str, at: float) -> None:
        """Every slot of queue was taken: look once more at ``at``, then only on NOTIFY or poll until jobs come."""
        with self._lock:
            if queue in self._more and queue not in self._rechecked:
                self._rechecked.add(queue)
                self._deferred[queue] = min(at, self._deferred.get(queue, at))

    def release_due(self, now: float) -> bool:
        """Hint every deferred queue whose time has come; True if any was."""
        with self._lock:
            due = [q for q, at in self._deferred.items() if at <= now]
            for name in due:
                del self._deferred[name]
                self._more[name] = True
                self._hints[name] += 1
            return bool(due)

    def next_due(self) -> float | None:
        """The earliest deferred hint's monotonic time, or None."""
        with self._lock:
            return min(self._deferred.values(), default=None)

    def any(self) -> bool:
        """Is some queue worth a claim?"""
        return any(self._more.values())

    def worth(self, queue: str) -> bool:
        return self._more.get(queue, False)
