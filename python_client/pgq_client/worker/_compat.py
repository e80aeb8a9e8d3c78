"""What differs between asyncio and threads, threads side (the asyncio side is ``_acompat.py``).

Same names as ``_acompat.py`` without the ``a``: the generated threaded worker
(``_worker.py``) imports these where the async source imports those.
"""

from __future__ import annotations

import asyncio
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any

# A SimpleQueue: put/get without the Condition-based bookkeeping of queue.Queue
# (the worker hands every job through one).
Queue = queue.SimpleQueue
QueueEmpty = queue.Empty
Handle = threading.Thread


class Event(threading.Event):
    def wait_for(self, timeout: float | None) -> bool:
        """Wait until set or timeout seconds pass; True if set."""
        return self.wait(timeout)


def spawn(target: Callable[..., None], *args: Any, name: str) -> threading.Thread:
    """Run target(*args) concurrently: a daemon thread."""
    thread = threading.Thread(target=target, args=args, name=name, daemon=True)
    thread.start()
    return thread


def join(handles: Iterable[threading.Thread], timeout: float, *, cancel: bool = True) -> None:
    """Wait up to timeout seconds in all for the threads (threads cannot be cancelled: daemons are left)."""
    deadline = time.monotonic() + timeout
    for thread in handles:
        thread.join(max(0.0, deadline - time.monotonic()))


def handler_threads(count: int) -> Any:
    """The threaded worker runs each handler in its own slot's thread: no executor (None)."""
    return None


def call(handler: Callable[..., Any], args: tuple[Any, ...], is_async: bool, threads: Any = None,
         ctx: Any = None) -> Any:
    """Run one handler in this thread (a coroutine function gets an event loop of its own); returns its value.

    ``ctx`` is for the async twin (which cancels an async handler's task); here a cancelled
    job's handler learns it from its JobContext (``should_stop``, ``wait``, ``check``).
    """
    if is_async:
        return asyncio.run(handler(*args))
    outcome = handler(*args)
    if asyncio.iscoroutine(outcome):
        return asyncio.run(outcome)
    return outcome


def call_hook(hook: Callable[..., Any], *args: Any) -> None:
    """Run an App lifecycle hook (a coroutine function gets an event loop of its own)."""
    outcome = hook(*args)
    if asyncio.iscoroutine(outcome):
        asyncio.run(outcome)


def install_signals(on_signal: Callable[[], None]) -> Callable[[], None]:
    """SIGTERM/SIGINT call on_signal (main thread only); returns the function that undoes it."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handle(signum: int, frame: FrameType | None) -> None:
        # Setting an Event takes a lock the interrupted thread may hold: do it from another thread.
        threading.Thread(target=on_signal, daemon=True).start()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore
