"""Waking idle claim loops: one at a time for one piece of news, all of them to stop.

A worker runs several claim loops (``claim_loops``). An idle loop waits here.
News (a NOTIFY, a poll tick, a finished job, a claim that came back full)
wakes *one* idle loop: one notification costs one claim, not one per loop.
Loops fan out by themselves under load: a loop whose claim came back full
wakes one more, so a backlog has every loop claiming within a few round trips.

A loop arms itself *before* it looks at the books and disarms before it takes
a round, so news that arrives between its look and its wait is never lost:
either the look sees it, or the wake-up finds the loop armed.
"""

from __future__ import annotations

import asyncio
import threading


class Waker:
    """Idle claim loops of the threaded worker, by index.

    Each loop has a gate: a plain lock held while the loop has not been
    woken, released to wake it. A lock costs a fraction of a
    ``threading.Event`` (whose set/wait go through a Python-level Condition),
    and a worker wakes a loop for nearly every job it finishes.
    """

    def __init__(self, loops: int) -> None:
        self._gates = [threading.Lock() for _ in range(loops)]
        for gate in self._gates:
            gate.acquire()
        self._open = [False] * loops  # woken since it last armed
        self._idle: list[int] = []  # most recently armed last: it is woken first (its connection is warm)
        self._lock = threading.Lock()

    def arm(self, i: int) -> None:
        with self._lock:
            if self._open[i]:
                self._gates[i].acquire()
                self._open[i] = False
            if i not in self._idle:
                self._idle.append(i)

    def disarm(self, i: int) -> None:
        with self._lock:
            if i in self._idle:
                self._idle.remove(i)

    def wait(self, i: int, timeout: float) -> None:
        if self._gates[i].acquire(timeout=timeout):
            with self._lock:
                self._open[i] = False

    def _open_gate(self, i: int) -> None:
        if not self._open[i]:
            self._open[i] = True
            self._gates[i].release()

    def wake_one(self) -> bool:
        """Wake the most recently idle loop; False if none was idle (the busy ones will look again anyway)."""
        with self._lock:
            if not self._idle:
                return False
            self._open_gate(self._idle.pop())
            return True

    def wake_all(self) -> None:
        with self._lock:
            for i in self._idle:
                self._open_gate(i)
            self._idle.clear()

    @property
    def idle(self) -> int:
        return len(self._idle)


class AsyncWaker:
    """The same for the asyncio worker's claim tasks (one event loop: no lock needed)."""

    def __init__(self, loops: int) -> None:
        self._events = [asyncio.Event() for _ in range(loops)]
        self._idle: list[int] = []

    def arm(self, i: int) -> None:
        self._events[i].clear()
        if i not in self._idle:
            self._idle.append(i)

    def disarm(self, i: int) -> None:
        if i in self._idle:
            self._idle.remove(i)

    async def wait(self, i: int, timeout: float) -> None:
        try:
            await asyncio.wait_for(self._events[i].wait(), timeout)
        except asyncio.TimeoutError:
            pass

    def wake_one(self) -> bool:
        if not self._idle:
            return False
        self._events[self._idle.pop()].set()
        return True

    def wake_all(self) -> None:
        for i in self._idle:
            self._events[i].set()
        self._idle.clear()

    @property
    def idle(self) -> int:
        return len(self._idle)
