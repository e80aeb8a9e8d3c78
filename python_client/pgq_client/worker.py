"""The threaded worker: runs a handler for the jobs of one or more queues.

    from pgq_client import Worker

    def send_email(payload):
        ...

    Worker(send_email, "emails", concurrency=10).run()   # until SIGTERM/SIGINT

Threads: the claim loop (the thread that calls :meth:`Worker.run`), one
thread per handler slot, a listener (a dedicated connection that holds the
liveness key and LISTENs for NOTIFY pgq) and a maintenance thread
(heartbeats, and ``q.reap`` about once a second). Claims, completes, fails
and releases share one pooled connection, pipelined into one round trip per
loop; heartbeats and the reaper use a second one.
"""

from __future__ import annotations

import logging
import queue as queue_mod
import random
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from types import FrameType
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from . import calls
from . import events as ev
from . import statements as sql
from .claim_plan import ClaimPlan
from .handlers import wants_context
from .job_context import RELEASED, JobCancelled, JobContext, JobLost
from .ledger import COMPLETE, DEAD, DROP, FAIL, Ledger, Result
from .payload_hook import InvalidPayload, convert, converter
from .round_trip import send
from .transient import Backoff, is_transient
from .worker_settings import WorkerSettings

MAINTENANCE_TICK = 0.2  # seconds between checks for due heartbeats and reaps
LISTEN_SLICE = 0.5  # seconds the listener waits for notifications before checking for stop/ping
PING_EVERY = 5.0  # seconds between pings of the listener connection
# The pool retries a failed connection with doubling delays; giving up after
# this many seconds (and starting over on the next request) keeps the gap
# between tries short, so a worker resumes within seconds of the database.
POOL_RECONNECT_TIMEOUT = 10.0


class Worker:
    """Runs ``handler`` for the jobs of ``queues`` with at most ``concurrency`` at a time.

    handler: ``f(payload)`` or ``f(payload, job)`` where job is a
      :class:`~pgq_client.JobContext`. Returning completes the job; raising
      fails it with the traceback as the error (the queue's backoff and
      max_attempts apply); raising JobCancelled/JobLost records nothing.
    database_url: a libpq URL or key=value string; default ``$DATABASE_URL``.
    concurrency: handler threads. batch_size: most jobs per claim (default
      the concurrency; a larger batch holds up to batch_size jobs, the ones
      beyond the concurrency waiting for a free thread).
    lease: claim lease (default the queue's); heartbeats renew it every lease/3.
    poll_interval: seconds between claims when no NOTIFY comes (always on).
    listen: LISTEN for NOTIFY pgq (off: poll only).
    pgbouncer: behind PgBouncer in transaction mode: no dedicated connection,
      so no LISTEN and lease-only claims (owner 0), prepared statements off.
    grace_period: seconds running jobs get to finish after SIGTERM/SIGINT.
    payload: a pydantic model or a callable applied to each payload first; if
      it raises, the job is dead at once (retryable => false).
    """

    def __init__(
        self,
        handler: Callable[..., Any],
        queues: str | Sequence[str],
        *,
        database_url: str | None = None,
        concurrency: int = 10,
        batch_size: int | None = None,
        lease: timedelta | float | None = None,
        poll_interval: float = 1.0,
        listen: bool = True,
        pgbouncer: bool = False,
        grace_period: float = 20.0,
        reap_interval: float = 1.0,
        payload: Any = None,
        name: str | None = None,
        connect_kwargs: dict[str, Any] | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.settings = WorkerSettings.build(
            queues,
            database_url=database_url,
            concurrency=concurrency,
            batch_size=batch_size,
            lease=lease,
            poll_interval=poll_interval,
            listen=listen,
            pgbouncer=pgbouncer,
            grace_period=grace_period,
            reap_interval=reap_interval,
            name=name,
            connect_kwargs=connect_kwargs,
        )
        self.handler = handler
        self.log = logger or logging.getLogger(f"{ev.LOGGER_NAME}.worker")
        self._with_context = wants_context(handler)
        self._convert = converter(payload)
        self._plan = ClaimPlan(self.settings.queues)
        self._ledger = Ledger(self.settings, self._plan, self.log)
        self._jobs: queue_mod.SimpleQueue[JobContext | None] = queue_mod.SimpleQueue()
        self._wake = threading.Event()  # the claim loop has something to look at
        self._halt = threading.Event()  # background threads: stop now
        self._stopping = False  # first signal: no more claims, let running jobs finish
        self._stop_now = False  # second signal: give everything back and exit
        self._owner_ready = self.settings.pgbouncer
        self._rekeyed_from: int | None = None
        self._threads: list[threading.Thread] = []
        self._runner: threading.Thread | None = None
        self.pool: ConnectionPool[Any] | None = None

    # -- public control -----------------------------------------------------------------

    @property
    def completed(self) -> int:
        """Jobs this worker has completed so far."""
        return self._ledger.completed_count

    def stop(self, *, now: bool = False) -> None:
        """Stop claiming and let running jobs finish (now=True: give them back and exit at once)."""
        self._stop_flags(now)
        self._wake.set()

    def start(self) -> Worker:
        """Run in a background thread (no signal handlers); stop with :meth:`stop` and :meth:`join`."""
        self._runner = threading.Thread(target=self.run, kwargs={"install_signal_handlers": False},
                                        name="pgq-worker", daemon=True)
        self._runner.start()
        return self

    def join(self, timeout: float | None = None) -> bool:
        """Wait for a worker started with :meth:`start`; True once it has stopped."""
        if self._runner is None:
            return True
        self._runner.join(timeout)
        return not self._runner.is_alive()

    def run(self, *, install_signal_handlers: bool = True) -> None:
        """Work until stopped (SIGTERM/SIGINT, or :meth:`stop`). Never returns because the database went away."""
        s = self.settings
        restore = self._install_signals() if install_signal_handlers else {}
        self.pool = ConnectionPool(
            s.database_url, min_size=min(2, s.pool_size), max_size=s.pool_size, kwargs=s.connection_kwargs("worker"),
            open=False, name=f"pgq-{s.name}", reconnect_timeout=POOL_RECONNECT_TIMEOUT,
        )
        self.pool.open(wait=False)
        ev.emit(self.log, logging.INFO, ev.WORKER_STARTED, name=s.name, queues=",".join(s.queues),
                concurrency=s.concurrency, batch_size=s.batch_size or "auto",
                mode="pgbouncer" if s.pgbouncer else ("listen" if s.listen else "poll"))
        try:
            for i in range(s.concurrency):
                self._spawn(self._handler_loop, f"pgq-handler-{i}")
            if s.uses_listener:
                self._spawn(self._listener_loop, "pgq-listener")
            self._spawn(self._maintenance_loop, "pgq-maintenance")
            self._claim_loop()
        finally:
            self._shutdown()
            for sig, previous in restore.items():
                signal.signal(sig, previous)

    # -- signals ------------------------------------------------------------------------------

    def _install_signals(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        restore = {}
        for sig in (signal.SIGTERM, signal.SIGINT):
            restore[sig] = signal.signal(sig, self._on_signal)
        return restore

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stop_flags(now=self._stopping)
        # Setting an Event takes a lock the interrupted thread may hold: do it from another thread.
        threading.Thread(target=self._wake.set, daemon=True).start()

    def _stop_flags(self, now: bool) -> None:
        if now:
            self._stop_now = True
        self._stopping = True

    # -- the claim loop -------------------------------------------------------------------

    def _claim_loop(self) -> None:
        s, ledger, pool = self.settings, self._ledger, self.pool
        assert pool is not None
        backoff = Backoff()
        conn: psycopg.Connection[Any] | None = None
        poll_at = time.monotonic() + s.poll_interval
        draining_until: float | None = None
        gave_back = False
        try:
            while not self._stop_now:
                self._wake.clear()
                now = time.monotonic()
                if self._stopping and draining_until is None:
                    draining_until = now + s.grace_period
                    ev.emit(self.log, logging.INFO, ev.WORKER_STOPPING, name=s.name, running=ledger.in_hand,
                            grace_period=s.grace_period)
                    ledger.mark_stopping()
                    self._give_back_unstarted()
                if draining_until is not None:
                    if ledger.in_hand <= 0 and not ledger.pending():
                        break
                    if now >= draining_until and not gave_back:
                        ledger.release(ledger.unfinished(), RELEASED)
                        gave_back = True
                    if gave_back and not ledger.pending():
                        break
                if now >= poll_at:
                    self._plan.hint()
                    poll_at = now + s.poll_interval
                can_claim = draining_until is None and self._owner_ready and ledger.free > 0 and self._plan.any()
                if not (can_claim or ledger.pending()):
                    deadline = poll_at if draining_until is None else min(draining_until, now + 0.5)
                    self._wake.wait(max(0.0, deadline - now))
                    continue
                rnd = ledger.take_round(claim=can_claim)
                if rnd.empty:
                    continue
                try:
                    if conn is None:
                        conn = pool.getconn(timeout=2.0)
                    sent = time.perf_counter()
                    answer = send(conn, rnd, owner=ledger.owner, lease=s.lease)
                    ledger.timed(round_seconds=time.perf_counter() - sent)
                except Exception as exc:  # noqa: BLE001 - every error is waited out; the loop must go on
                    ledger.carry(rnd)
                    if conn is not None:
                        pool.putconn(conn)
                        conn = None
                    self._db_trouble(exc, backoff, "claim loop")
                    if self._stop_now or (gave_back and not is_transient(exc)):
                        break
                    self._halt.wait(backoff.next())
                    continue
                if backoff.reset():
                    ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="claim loop")
                fresh = ledger.settle(rnd, answer)
                if fresh:
                    if draining_until is not None:
                        ledger.release(fresh, RELEASED)
                    else:
                        for ctx in fresh:
                            self._jobs.put(ctx)
            if self._stop_now:
                self._give_back_unstarted()
                ledger.release(ledger.unfinished(), RELEASED)
            if ledger.pending():
                conn = self._last_round(conn)
        finally:
            if conn is not None:
                pool.putconn(conn)

    def _last_round(self, conn: psycopg.Connection[Any] | None) -> psycopg.Connection[Any] | None:
        """Record what is left (outcomes, releases) in one try; whatever fails is reaped later."""
        assert self.pool is not None
        rnd = self._ledger.take_round(claim=False)
        try:
            if conn is None:
                conn = self.pool.getconn(timeout=2.0)
            self._ledger.settle(rnd, send(conn, rnd, owner=self._ledger.owner, lease=self.settings.lease))
        except Exception as exc:  # noqa: BLE001
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component="shutdown", error=str(exc).strip(),
                    unrecorded=len(rnd.results) + len(rnd.releases))
            if conn is not None:
                self.pool.putconn(conn)
            return None
        return conn

    def _give_back_unstarted(self) -> None:
        unstarted = []
        while True:
            try:
                ctx = self._jobs.get_nowait()
            except queue_mod.Empty:
                break
            if ctx is not None:
                unstarted.append(ctx)
        if unstarted:
            self._ledger.release(unstarted, RELEASED)

    def _db_trouble(self, exc: Exception, backoff: Backoff, component: str) -> None:
        if not is_transient(exc):
            ev.emit(self.log, logging.ERROR, ev.DB_ERROR, component=component, error=f"{type(exc).__name__}: {exc}")
        elif backoff.failures == 0:
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component=component,
                    error=f"{type(exc).__name__}: {str(exc).strip()}")

    # -- handlers ---------------------------------------------------------------------------

    def _handler_loop(self) -> None:
        while True:
            ctx = self._jobs.get()
            if ctx is None:
                return
            started = time.perf_counter()
            result = self._run_one(ctx)
            self._ledger.report(result, time.perf_counter() - started)
            self._wake.set()

    def _run_one(self, ctx: JobContext) -> Result:
        try:
            ctx.payload = convert(self._convert, ctx.job.payload)
        except InvalidPayload as exc:
            return Result(DEAD, ctx, str(exc))
        try:
            if self._with_context:
                self.handler(ctx.payload, ctx)
            else:
                self.handler(ctx.payload)
        except (JobCancelled, JobLost):
            return Result(DROP, ctx)
        except BaseException:  # noqa: BLE001 - a handler's failure is data for q.fail
            return Result(FAIL, ctx, traceback.format_exc())
        return Result(COMPLETE, ctx) if not ctx.should_stop else Result(DROP, ctx)

    # -- the listener: liveness key and LISTEN ---------------------------------------

    def _listener_loop(self) -> None:
        s, ledger = self.settings, self._ledger
        backoff = Backoff()
        while not self._halt.is_set():
            try:
                with psycopg.connect(s.database_url, **s.connection_kwargs("listener")) as conn:
                    key = calls.session_key(conn)
                    db_now = conn.execute("select clock_timestamp()").fetchone()[0]
                    ledger.clock_skew = db_now - datetime.now(timezone.utc)
                    if s.listen:
                        conn.execute(sql.LISTEN)
                    previous, ledger.owner = ledger.owner, key
                    if previous and previous != key:
                        self._rekeyed_from = previous
                    self._owner_ready = True
                    ev.emit(self.log, logging.INFO, ev.LISTENER_CONNECTED, session_key=key, listen=s.listen)
                    if backoff.reset():
                        ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="listener")
                    self._plan.hint()  # notifications may have been missed while away
                    self._wake.set()
                    self._listen(conn)
            except Exception as exc:  # noqa: BLE001
                self._owner_ready = False
                self._db_trouble(exc, backoff, "listener")
                self._halt.wait(backoff.next())

    def _listen(self, conn: psycopg.Connection[Any]) -> None:
        pinged = time.monotonic()
        while not self._halt.is_set():
            if self.settings.listen:
                for note in conn.notifies(timeout=LISTEN_SLICE):
                    if self._plan.hint(note.payload):
                        self._wake.set()
            else:
                self._halt.wait(LISTEN_SLICE)
            if time.monotonic() - pinged >= PING_EVERY:
                conn.execute("select 1")
                pinged = time.monotonic()

    # -- maintenance: heartbeats and the reaper --------------------------------------

    def _maintenance_loop(self) -> None:
        s, ledger, pool = self.settings, self._ledger, self.pool
        assert pool is not None
        backoff = Backoff()
        conn: psycopg.Connection[Any] | None = None
        next_reap = time.monotonic() + random.uniform(0, s.reap_interval)
        while not self._halt.wait(MAINTENANCE_TICK):
            try:
                if conn is None:
                    conn = pool.getconn(timeout=2.0)
                    if s.pgbouncer:  # no listener to measure the clock against the database's
                        db_now = conn.execute("select clock_timestamp()").fetchone()[0]
                        ledger.clock_skew = db_now - datetime.now(timezone.utc)
                rekeyed = self._rekeyed_from
                if rekeyed is not None:
                    # Our old key is free now, so peers will reap its jobs: reap them ourselves
                    # at once and tell their handlers (the heartbeat says lost).
                    calls.reap(conn)
                    next_reap = time.monotonic() + s.reap_interval
                    self._rekeyed_from = None
                due = ledger.due_heartbeats(all_of_owner=rekeyed)
                if due:
                    ledger.heartbeat_answer(due, calls.heartbeat_many(conn, [c.job for c in due], lease=s.lease))
                if time.monotonic() >= next_reap:
                    reaped = calls.reap(conn)
                    next_reap = time.monotonic() + s.reap_interval * random.uniform(0.9, 1.1)
                    if reaped:
                        ev.emit(self.log, logging.INFO, ev.JOBS_REAPED, count=reaped)
                backoff.reset()
            except Exception as exc:  # noqa: BLE001
                if conn is not None:
                    pool.putconn(conn)
                    conn = None
                if not is_transient(exc):
                    self._db_trouble(exc, backoff, "maintenance")
                self._halt.wait(backoff.next())
        if conn is not None:
            pool.putconn(conn)

    # -- start and stop ------------------------------------------------------------------------

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _shutdown(self) -> None:
        self._halt.set()
        for _ in range(self.settings.concurrency):
            self._jobs.put(None)
        for thread in self._threads:
            # Idle handler threads exit on the None above; busy ones (grace period over) are
            # daemons whose results no longer count: do not wait for them.
            if not thread.name.startswith("pgq-handler"):
                thread.join(timeout=2.0)
        if self.pool is not None:
            self.pool.close(timeout=2.0)
        ev.emit(self.log, logging.INFO, ev.WORKER_STOPPED, name=self.settings.name, completed=self.completed)
