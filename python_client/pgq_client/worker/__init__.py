"""The worker runtime: runs handlers for the jobs of queues, on top of the thin client's SQL calls.

``Worker`` (threads) and ``AsyncWorker`` (asyncio) are one implementation:
``_async_worker.py`` is the source and ``_worker.py`` is generated from it
(``tools/async_to_sync.py``). Modules starting with ``_`` are private.
Importing this package is cheap; ``Worker``/``AsyncWorker`` import
psycopg_pool when first used (the ``worker`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._lanes import Lane
from .options import WorkerOptions

if TYPE_CHECKING:
    from ._async_group import AsyncWorkerGroup
    from ._async_worker import AsyncWorker, Hooks
    from ._group import WorkerGroup
    from ._transient import StartupError
    from ._worker import Worker

__all__ = ["AsyncWorker", "AsyncWorkerGroup", "Hooks", "Lane", "StartupError", "Worker", "WorkerGroup",
           "WorkerOptions"]


def __getattr__(name: str) -> Any:
    if name == "StartupError":  # with psycopg: not imported by `pgq --help` (worker.events, worker.options)
        from ._transient import StartupError

        return StartupError
    try:
        if name == "Worker":
            from ._worker import Worker

            return Worker
        if name in ("AsyncWorker", "Hooks"):
            from . import _async_worker

            return getattr(_async_worker, name)
        if name == "WorkerGroup":
            from ._group import WorkerGroup

            return WorkerGroup
        if name == "AsyncWorkerGroup":
            from ._async_group import AsyncWorkerGroup

            return AsyncWorkerGroup
    except ModuleNotFoundError as exc:
        if exc.name != "psycopg_pool":
            raise
        raise ModuleNotFoundError(
            f"pgq_client.{name} needs the 'worker' extra (psycopg_pool is not installed):"
            " pip install 'pgq-client[worker]'", name=exc.name
        ) from exc
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
