"""What differs between asyncio and threads, asyncio side (the threads side is ``_compat.py``).

The async worker (``_async_worker.py``) uses only these names for waiting,
spawning and signals; ``tools/async_to_sync.py`` maps each to its twin in
``_compat.py`` (``AEvent`` -> ``Event``, ``aspawn`` -> ``spawn``, ...), so the
two modules keep the same names, one beside the other. Everything else in
the worker is written once.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import signal
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

AQueue = asyncio.Queue
QueueEmpty = asyncio.QueueEmpty
Handle = asyncio.Task[None]


class AEvent(asyncio.Event):
    async def wait_for(self, timeout: float | None) -> bool:
        """Wait until set or timeout seconds pass; True if set."""
        if self.is_set():
            return True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.wait(), timeout)
        return self.is_set()


def aspawn(target: Callable[..., Coroutine[Any, Any, None]], *args: Any, name: str) -> asyncio.Task[None]:
    """Run target(*args) concurrently: a task."""
    return asyncio.create_task(target(*args), name=name)


async def ajoin(handles: Iterable[asyncio.Task[None]], timeout: float, *, cancel: bool = True) -> None:
    """Wait up to timeout seconds for the tasks; cancel (and await) those still running."""
    tasks = list(handles)
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    if cancel and pending:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


def handler_threads(count: int) -> ThreadPoolExecutor | None:
    """The threads plain handlers of an async worker run in: one per slot of their lanes.

    asyncio's default executor has min(32, cpus + 4) threads: on 2 cores, 6
    jobs of a task with concurrency 10 would run at once.
    """
    return ThreadPoolExecutor(max_workers=count, thread_name_prefix="pgq-handler") if count else None


async def acall(handler: Callable[..., Any], args: tuple[Any, ...], is_async: bool,
                threads: ThreadPoolExecutor | None = None, ctx: Any = None) -> Any:
    """Run one handler and return its value: a coroutine is awaited; a plain function runs in a thread.

    An async handler runs as a task of its own, which ``ctx`` (its JobContext) cancels when the
    job is cancelled (``JobContext.stop``): the handler gets CancelledError at its next await.
    """
    if is_async:
        task = asyncio.ensure_future(handler(*args))
        if ctx is not None:
            loop = asyncio.get_running_loop()
            ctx.interrupt_with(lambda: loop.call_soon_threadsafe(task.cancel))
        return await task
    call = functools.partial(contextvars.copy_context().run, handler, *args)
    outcome = await asyncio.get_running_loop().run_in_executor(threads, call)
    if isinstance(outcome, Awaitable):
        return await outcome
    return outcome


async def acall_hook(hook: Callable[..., Any], *args: Any) -> None:
    """Run an App lifecycle hook, awaiting it if it is a coroutine function."""
    outcome = hook(*args)
    if isinstance(outcome, Awaitable):
        await outcome


def ainstall_signals(on_signal: Callable[[], None]) -> Callable[[], None]:
    """SIGTERM/SIGINT call on_signal in the event loop; returns the function that undoes it."""
    loop = asyncio.get_running_loop()
    installed: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)

    def restore() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return restore
