"""Which queue to claim from next: a queue is worth a claim while its last claim came back full,
after a NOTIFY named it, at every poll tick, and when a rate limit's next slot frees (defer).

Notifications are debounced per queue: any role may ``NOTIFY pgq, '<queue>'`` (PostgreSQL has no
privilege on NOTIFY), and one claim per notification let a flood of them drive an idle worker to
hundreds of empty claims a second. When a claim of a queue that a notification named comes back
empty, a quiet slice of :data:`NOTIFY_DEBOUNCE` seconds begins for that queue: its notifications
(and a hint that came during that claim) do not claim at once but schedule one claim at the end of
the slice. So notifications cost a queue at most one empty claim per slice, and a real job that
arrives during a flood still starts within about one slice. Claims that find jobs, and empty claims
no notification asked for (the poll), start no slice: pickup without a flood is as prompt as before.

Wake-ups on demand (design.md#wake-ups-on-demand): an enqueue notifies only while a worker waits for its queue, and a
listening worker waits from its first *empty* claim (q.claim records it) until a claim finds jobs.
So a listening worker (``until_empty``) keeps claiming a queue until a claim comes back empty, not
just short: after a short claim that found jobs nobody would tell it about the next one. A claim that
found jobs counts as a hint for claims of the same queue still on their way (their "came back empty"
may predate it, and that claim ended the wait).
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from enum import Enum

# Seconds after an empty claim of a queue during which its notifications wait for one claim at the
# slice's end (at most one empty claim per queue per slice; a real job's pickup waits at most this).
NOTIFY_DEBOUNCE = 0.1


class Notice(str, Enum):
    """What a notification naming a queue is worth."""

    CLAIM = "claim"  # worth a claim now
    LATER = "later"  # debounced: the queue is hinted at the end of the slice (next_due)
    COMING = "coming"  # after a slice: the claim that ended it is coming; counted as a hint, nothing to do
    IGNORE = "ignore"  # not one of our queues


class ClaimHints:
    """Per-queue "may have work" flags, fed by claims, notifications and the poll timer.

    A hint that arrives while a claim of the same queue is on its way wins
    over that claim's "came back short": the job behind the hint may have
    been committed after the claim looked.
    """

    def __init__(
        self, queues: tuple[str, ...], debounce: float = NOTIFY_DEBOUNCE, *, until_empty: bool = False
    ) -> None:
        self._queues = queues
        self._until_empty = until_empty  # a listening worker: claim until empty (wake-ups on demand)
        self._more = dict.fromkeys(queues, True)
        self._counts = dict.fromkeys(queues, 0)
        self._next = 0
        self._deferred: dict[str, float] = {}  # queue -> monotonic time it is worth a claim again
        self._rechecked: set[str] = set()  # queues found full and looked at again since their last jobs
        self._debounce = debounce
        self._quiet_until: dict[str, float] = {}  # queue -> end of its debounce slice (monotonic)
        self._named: set[str] = set()  # queues a notification named since their last claim came back
        self._sooner = False  # a deferral moved the earliest due time earlier (take_sooner)
        self._lock = threading.Lock()

    def hint(self, queue: str | None = None) -> bool:
        """Mark one queue (None: all) as worth a claim; False if the queue is not ours."""
        with self._lock:
            names = self._queues if queue is None else ((queue,) if queue in self._more else ())
            for name in names:
                self._more[name] = True
                self._counts[name] += 1
            return bool(names)

    def notified(self, queue: str, now: float) -> Notice:
        """A NOTIFY named queue: worth a claim now, or (debounced) at the end of the slice of its last empty claim.

        Debounced only while the queue is not already worth a claim: then a
        claim is coming anyway, and the hint must count (it wins over that
        claim's "came back short"). When a slice has just ended and its claim
        is on its way, a notification adds no claim of its own (COMING): one claim per slice.
        """
        with self._lock:
            if queue not in self._more:
                return Notice.IGNORE
            self._named.add(queue)
            end = self._quiet_until.get(queue)
            if end is not None and not self._more[queue] and now < end:
                self._defer(queue, end)
                return Notice.LATER
            if end is not None and self._more[queue] and now < end + self._debounce:
                self._counts[queue] += 1
                return Notice.COMING
            due = self._deferred.get(queue)
            if end is not None and due is not None and due <= now:
                del self._deferred[queue]  # the slice's own claim, due now: this claim is it
            self._more[queue] = True
            self._counts[queue] += 1
            return Notice.CLAIM

    def pick(self, allowed: Collection[str] | None = None) -> tuple[str, int] | None:
        """The next queue worth a claim (round robin; only those in allowed) and its hint counter, or None."""
        with self._lock:
            n = len(self._queues)
            for i in range(n):
                name = self._queues[(self._next + i) % n]
                if self._more[name] and (allowed is None or name in allowed):
                    self._next = (self._next + i + 1) % n
                    return name, self._counts[name]
            return None

    def claimed(self, queue: str, asked: int, got: int, hints_then: int, now: float, *, limited: bool = False) -> None:
        """Record a claim's result: a full claim means more work; a short one means none, unless hinted since
        (with until_empty: only an empty one; a short one that found jobs claims again).

        An empty claim of a queue a notification named since its last claim
        came back starts a quiet slice (see the module's text): within it,
        the queue's notifications wait for the slice's end (:meth:`notified`),
        and so does a hint that arrived while this claim was on its way. A
        claim that a flow-control limit cut short (limited) starts none: its
        queue has jobs, and the NOTIFY of the next freed slot must claim at once.
        """
        with self._lock:
            named = queue in self._named and not limited
            self._named.discard(queue)
            # A listening worker is told of new jobs only once a claim came back empty (its wait).
            drained = got == 0 if self._until_empty and not limited else got < asked
            if drained and self._counts[queue] == hints_then:
                self._more[queue] = False
            if got and self._until_empty:
                self._counts[queue] += 1  # claims of this queue on their way: their "empty" is older
            if got:
                self._rechecked.discard(queue)
                self._quiet_until.pop(queue, None)
                return
            end = self._quiet_until.get(queue)
            if named and (end is None or now >= end):
                end = self._quiet_until[queue] = now + self._debounce
            if end is not None and now < end and self._more[queue]:
                self._more[queue] = False
                self._defer(queue, end)

    def defer(self, queue: str, at: float) -> None:
        """A rate limit cut a claim of queue short: hint it again at monotonic time ``at``."""
        with self._lock:
            if queue in self._more:
                self._defer(queue, at)

    def recheck(self, queue: str, at: float) -> None:
        """Every slot of queue was taken: look once more at ``at``, then only on NOTIFY or poll until jobs come."""
        with self._lock:
            if queue in self._more and queue not in self._rechecked:
                self._rechecked.add(queue)
                self._defer(queue, at)

    def _defer(self, queue: str, at: float) -> None:
        # The lock is held. The supervisor sleeps until the earliest deferral: an earlier one must wake it.
        earliest = min(self._deferred.values(), default=None)
        self._deferred[queue] = min(at, self._deferred.get(queue, at))
        if earliest is None or at < earliest:
            self._sooner = True

    def take_sooner(self) -> bool:
        """True once after a deferral became the earliest: whoever sees it wakes the supervisor (its timer)."""
        if not self._sooner:
            return False
        with self._lock:
            sooner, self._sooner = self._sooner, False
            return sooner

    def release_due(self, now: float) -> bool:
        """Hint every deferred queue whose time has come; True if any was."""
        with self._lock:
            due = [q for q, at in self._deferred.items() if at <= now]
            for name in due:
                del self._deferred[name]
                self._more[name] = True
                self._counts[name] += 1
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
