"""Stepping two real sessions deterministically: a statement runs in the
background, and the test waits until PostgreSQL reports it either finished or
waiting on a lock held by the other session, before taking the next step."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import psycopg

STEP_LIMIT = 10.0  # seconds a step may take before the test gives up


class Session:
    """One connection, and a thread to run its statements in the background."""

    def __init__(self, conn: psycopg.Connection[Any], observer: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.observer = observer
        self.pid = conn.info.backend_pid
        self._pool = ThreadPoolExecutor(max_workers=1)

    def run(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run a statement now and return its rows."""
        return self.conn.execute(query, params).fetchall()

    def start(self, query: str, params: tuple[Any, ...] = ()) -> Future[list[tuple[Any, ...]]]:
        """Run a statement in the background."""
        return self._pool.submit(self.run, query, params)

    def blocked(self) -> bool:
        row = self.observer.execute(
            "select wait_event_type = 'Lock' from pg_stat_activity where pid = %s", (self.pid,)
        ).fetchone()
        return bool(row and row[0])

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def finishes_without_waiting(session: Session, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The statement completes and was never seen waiting on a lock."""
    future = session.start(query, params)
    deadline = time.monotonic() + STEP_LIMIT
    while not future.done():
        assert not session.blocked(), f"{query!r} waited on a lock"
        assert time.monotonic() < deadline, f"{query!r} did not finish"
        time.sleep(0.005)
    return future.result()


def blocks(session: Session, query: str, params: tuple[Any, ...] = ()) -> Future[list[tuple[Any, ...]]]:
    """Start the statement and return once it waits on a lock (it must not finish first)."""
    future = session.start(query, params)
    deadline = time.monotonic() + STEP_LIMIT
    while not session.blocked():
        assert not future.done(), f"{query!r} finished instead of waiting: {future.result()}"
        assert time.monotonic() < deadline, f"{query!r} never waited"
        time.sleep(0.005)
    return future


def outcome(future: Future[list[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    return future.result(timeout=STEP_LIMIT)
