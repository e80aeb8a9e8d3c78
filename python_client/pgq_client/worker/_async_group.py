"""One process serving queues in several databases: a worker per database, run and stopped together.

    group = app.worker(databases=["postgresql:///orders_eu", "postgresql:///orders_us"])
    group.run()                                   # until SIGTERM/SIGINT, like one worker

This is a layer above the single-database worker, not inside it: each
database gets an ordinary :class:`~pgq_client.AsyncWorker` (its own pool,
listener, claim loops, heartbeats and reaper turn), so a database that
restarts or goes away stalls only its own queues while the others keep being
served, and that database's worker reconnects on its own as it always does.
The group installs the signal handlers once and passes a stop on to every
worker (a second signal: stop now). A worker that cannot start (pgq not
installed there, a missing grant: :class:`~pgq_client.StartupError`) stops
the whole group, and the error names the database; a database that is only
down at start is waited for, without holding up the others.

``_group.py`` (the threaded ``WorkerGroup``) is generated from this file by
``tools/async_to_sync.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._acompat import AEvent, Handle, ainstall_signals, ajoin, aspawn
from ._async_worker import AsyncWorker  # sync: from ._worker import Worker
from ._transient import StartupError

CHECK_EVERY = 0.5  # seconds between the group's looks at its workers (a stop or a failure wakes it sooner)


class AsyncWorkerGroup:
    """Workers for several databases (label -> worker), run as one: :meth:`run`, :meth:`stop`, :meth:`start`.

    Made by :meth:`pgq_client.App.worker` with ``databases=`` (or ``pgq worker``
    with ``--database-url`` repeated), or from workers you made; the labels are the databases' short
    names (their dbname where that tells them apart), also in each worker's
    name (``host:pid/label``) and so in its logs and ``application_name``.
    """

    def __init__(self, workers: Mapping[str, AsyncWorker]) -> None:
        if not workers:
            raise ValueError("a worker group needs at least one database")
        self.workers = dict(workers)
        self._changed = AEvent()
        self._stopping = False
        self._failures: dict[str, BaseException] = {}
        self._runner: Handle | None = None

    @property
    def completed(self) -> int:
        """Jobs the group's workers have completed so far, over every database."""
        return sum(w.completed for w in self.workers.values())

    def completed_by_database(self) -> dict[str, int]:
        """Jobs completed so far, per database label."""
        return {name: w.completed for name, w in self.workers.items()}

    def stop(self, *, now: bool = False) -> None:
        """Stop every worker: no more claims, running jobs finish (now=True: give them back and exit)."""
        self._stopping = True
        for worker in self.workers.values():
            worker.stop(now=now)
        self._changed.set()

    def start(self) -> AsyncWorkerGroup:
        """Run in the background (no signal handlers); stop with :meth:`stop` and :meth:`join`."""
        self._runner = aspawn(self.run, False, name="pgq-worker-group")
        return self

    async def join(self, timeout: float | None = None) -> bool:
        """Wait for a group started with :meth:`start`; True once every worker has stopped."""
        if self._runner is None:
            return True
        await ajoin([self._runner], 1e9 if timeout is None else timeout, cancel=False)
        return _done(self._runner)

    async def run(self, install_signal_handlers: bool = True) -> None:
        """Run every database's worker until stopped (SIGTERM/SIGINT, or :meth:`stop`).

        Raises :class:`~pgq_client.StartupError` naming the database when one
        of the workers cannot start; the others are stopped first.
        """
        restore = ainstall_signals(self._on_signal) if install_signal_handlers else None
        try:
            handles = [aspawn(self._serve, name, name=f"pgq-db-{name}") for name in self.workers]
            while not all(_done(h) for h in handles):
                if self._failures and not self._stopping:
                    self.stop()
                await self._changed.wait_for(CHECK_EVERY)
                self._changed.clear()
            await ajoin(handles, 1e9, cancel=False)
        finally:
            if restore is not None:
                restore()
        for name, exc in self._failures.items():
            if isinstance(exc, StartupError):
                raise StartupError(f"database {name}: {exc}") from exc
            raise exc

    def _on_signal(self) -> None:
        self.stop(now=self._stopping)

    async def _serve(self, name: str) -> None:
        try:
            await self.workers[name].run(False)
        except Exception as exc:  # noqa: BLE001 - kept, reported by run() once every worker has stopped
            self._failures[name] = exc
        finally:
            self._changed.set()


def _done(handle: Handle) -> bool:
    return handle.done()  # sync: return not handle.is_alive()
