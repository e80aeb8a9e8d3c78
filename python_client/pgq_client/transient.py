"""Which database errors are worth retrying, and how long to wait between tries."""

from __future__ import annotations

import random
import threading

import psycopg
from psycopg import errors

# Errors that say "the database is away or busy right now", not "this call is
# wrong": connection lost, server restart/shutdown, lock_timeout,
# statement_timeout, serialization failure, deadlock, too many connections.
# psycopg raises all of them as OperationalError subclasses; pool timeouts too.
_NOT_TRANSIENT = (errors.ProgramLimitExceeded, errors.DiskFull)


def is_transient(exc: BaseException) -> bool:
    """True for errors a worker should wait out and retry, never exit on."""
    if isinstance(exc, _NOT_TRANSIENT):
        return False
    return isinstance(exc, (psycopg.OperationalError, errors.ConnectionException, errors.OperatorIntervention))


class Backoff:
    """Capped exponential backoff with full jitter: 0..min(cap, base * 2**n) seconds.

    The cap (default 2 s) bounds how long a worker waits after the database
    comes back, so it resumes within a few seconds of a restart.
    """

    def __init__(self, base: float = 0.05, cap: float = 2.0) -> None:
        self.base = base
        self.cap = cap
        self.failures = 0

    def next(self) -> float:
        delay = random.uniform(self.base / 2, min(self.cap, self.base * 2**self.failures))
        self.failures = min(self.failures + 1, 30)
        return delay

    def reset(self) -> bool:
        """Forget the failures; True if there were any (the caller logs a reconnect)."""
        had = self.failures > 0
        self.failures = 0
        return had


class Outage:
    """Shared by a worker's claim loops, so an outage is logged once, not once per loop.

    :meth:`failed` is true for the first loop to fail (log ``db_unavailable``);
    :meth:`recovered` is true when the last failing loop gets through again
    (log ``db_reconnected``).
    """

    def __init__(self) -> None:
        self._down: set[int] = set()
        self._lock = threading.Lock()

    def failed(self, loop: int) -> bool:
        with self._lock:
            first = not self._down
            self._down.add(loop)
            return first

    def recovered(self, loop: int) -> bool:
        with self._lock:
            if loop not in self._down:
                return False
            self._down.discard(loop)
            return not self._down
