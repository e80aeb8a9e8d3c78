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


class StartupError(RuntimeError):
    """The worker cannot start and waiting will not help: the message says what is wrong and the fix."""


# Connection-time errors arrive without a SQLSTATE (psycopg raises a plain
# OperationalError with the server's FATAL text), so they are told apart by
# the server's message; the SQLSTATE each stands for is in the comment.
_FATAL_CONNECT = (
    ("does not exist", "database"),  # 3D000 database "x" does not exist; 28000 role "x" does not exist
    ("password authentication failed", "auth"),  # 28P01
    ("no pg_hba.conf entry", "auth"),  # 28000
    ("authentication failed", "auth"),  # 28000 (peer, ident, cert, ...)
    ("permission denied for database", "grant"),  # 42501 at connect (CONNECT privilege)
)


def fatal_reason(exc: BaseException, *, role: str = "this role") -> str | None:
    """The one-line message and fix for an error that cannot fix itself, or None (transient or unknown).

    Not fatal (waited out as before): the server down or starting, too many
    connections, lock or statement timeouts, serialization failures.
    """
    state = getattr(exc, "sqlstate", None)
    primary = _primary(exc)
    if state == "3F000" or (state == "42883" and " q." in f" {primary}"):
        return f"pgq is not installed in this database ({primary}): run `pgq migrate` (alembic upgrade head)"
    if state == "42501":
        return f"permission denied ({primary}): grant pgq_worker to {role}"
    if state == "3D000":
        return f"{primary}: create it, or point DATABASE_URL at the right database"
    if state in ("28P01", "28000"):
        return f"cannot log in ({primary}): check the user and password in DATABASE_URL"
    if isinstance(exc, psycopg.OperationalError) and state is None:
        text = str(exc)
        for needle, kind in _FATAL_CONNECT:
            if needle in text:
                line = _fatal_line(text)
                if kind == "database" and "role" in line:
                    return f"{line}: create the role, or fix the user in DATABASE_URL"
                if kind == "database":
                    return f"{line}: create it, or point DATABASE_URL at the right database"
                if kind == "grant":
                    return f"{line}: grant CONNECT on the database to {role}"
                return f"cannot log in ({line}): check the user and password in DATABASE_URL"
    return None


def _primary(exc: BaseException) -> str:
    diag = getattr(exc, "diag", None)
    message = getattr(diag, "message_primary", None) if diag is not None else None
    return str(message or str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)


def _fatal_line(text: str) -> str:
    for line in text.splitlines():
        if "FATAL:" in line:
            return line.split("FATAL:", 1)[1].strip()
    return text.strip().splitlines()[0]
