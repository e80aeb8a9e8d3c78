"""The threaded worker: runs a handler for the jobs of one or more queues.

    from pgq_client import Worker

    def send_email(payload):
        ...

    Worker(send_email, "emails", concurrency=10).run()   # until SIGTERM/SIGINT

Threads: ``claim_loops`` claim loops, each with its own pooled connection
(completes, fails, releases and the next claim, pipelined into one round trip
and one transaction per round; several loops keep several rounds in flight,
so their commits overlap), one thread per handler slot, a listener (a
dedicated connection that holds the liveness key and LISTENs for NOTIFY pgq),
a maintenance thread (heartbeats, and ``q.reap`` about once a second, on one
more pooled connection) and the thread that calls :meth:`Worker.run`, which
keeps the poll timer and runs the shutdown sequence.
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
from .transient import Backoff, Outage, is_transient
from .wakeups import Waker
from .worker_settings import WorkerSettings

MAINTENANCE_TICK = 0.2  # seconds between checks for due heartbeats and reaps
IDLE_WAIT = 1.0  # seconds an idle claim loop sleeps before it looks again unwoken (a safety net)
DRAIN_TICK = 0.02  # seconds between the supervisor's looks while running jobs finish after a stop
LOOP_JOIN_TIMEOUT = 5.0  # seconds the supervisor waits for each claim loop's last round at exit
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
      automatic: the concurrency plus a prefetch sized by Little's law; a
      batch larger than the concurrency holds up to batch_size jobs, the ones
      beyond the concurrency waiting for a free thread).
    claim_loops: round trips kept in flight at once, each on its own pooled
      connection (default ceil(concurrency / batch_size) with batch_size
      given, else min(4, concurrency); at most the concurrency).
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
        claim_loops: int | None = None,
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
            claim_loops=claim_loops,
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
        self._waker = Waker(self.settings.loops)  # idle claim loops wait here
        self._outage = Outage()
        self._wake = threading.Event()  # the supervisor has something to look at
        self._halt = threading.Event()  # background threads: stop now
        self._stopping = False  # first signal: no more claims, let running jobs finish
        self._stop_now = False  # second signal: give everything back and exit
        self._gave_back = False  # the grace period is over and unfinished jobs were released
        self._give_up = False  # a claim loop could not record the last outcomes and gave up
        self._loops_done = threading.Event()  # the supervisor is done: claim loops finish their round and exit
        self._owner_ready = self.settings.pgbouncer
        self._rekeyed_from: int | None = None
        self._threads: list[threading.Thread] = []
        self._loop_threads: list[threading.Thread] = []
        self._runner: threading.Thread | None = None
        self.pool: ConnectionPool[Any] | None = None

    # -- public control -----------------------------------------------------------------

    @property
    def completed(self) -> int:
        """Jobs this worker has completed so far."""
        return self._ledger.completed_count

    @property
    def peak_rounds_in_flight(self) -> int:
        """Most round trips this worker has had on their way at once (at most its claim loops)."""
        return self._ledger.peak_in_flight

    def stop(self, *, now: bool = False) -> None:
        """Stop claiming and let running jobs finish (now=True: give them back and exit at once)."""
        self._stop_flags(now)
        self._wake_everyone()

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
            s.database_url, min_size=s.loops + 1, max_size=s.pool_size, kwargs=s.connection_kwargs("worker"),
            open=False, name=f"pgq-{s.name}", reconnect_timeout=POOL_RECONNECT_TIMEOUT,
        )
        self.pool.open(wait=False)
        ev.emit(self.log, logging.INFO, ev.WORKER_STARTED, name=s.name, queues=",".join(s.queues),
                concurrency=s.concurrency, batch_size=s.batch_size or "auto", claim_loops=s.loops,
                mode="pgbouncer" if s.pgbouncer else ("listen" if s.listen else "poll"))
        try:
            for i in range(s.concurrency):
                self._spawn(self._handler_loop, f"pgq-handler-{i}")
            if s.uses_listener:
                self._spawn(self._listener_loop, "pgq-listener")
            self._spawn(self._maintenance_loop, "pgq-maintenance")
            for i in range(s.loops):
                thread = threading.Thread(target=self._claim_loop, args=(i,), name=f"pgq-claim-{i}", daemon=True)
                thread.start()
                self._loop_threads.append(thread)
            self._supervise()
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
        threading.Thread(target=self._wake_everyone, daemon=True).start()

    def _wake_everyone(self) -> None:
        self._wake.set()
        self._waker.wake_all()

    def _stop_flags(self, now: bool) -> None:
        if now:
            self._stop_now = True
        self._stopping = True

    # -- the claim loops and their supervisor ---------------------------------------------------

    def _supervise(self) -> None:
        """The poll timer and the shutdown sequence; the claim loops do the round trips."""
        s, ledger, waker = self.settings, self._ledger, self._waker
        poll_at = time.monotonic() + s.poll_interval
        draining_until: float | None = None
        while not self._stop_now and not self._give_up:
            self._wake.clear()
            now = time.monotonic()
            if self._stopping and draining_until is None:
                draining_until = now + s.grace_period
                ev.emit(self.log, logging.INFO, ev.WORKER_STOPPING, name=s.name, running=ledger.in_hand,
                        grace_period=s.grace_period)
                ledger.mark_stopping()
                self._give_back_unstarted()
                waker.wake_all()  # no more claims; the releases go out at once
            if draining_until is not None:
                if ledger.in_hand <= 0 and not ledger.busy():
                    break
                if now >= draining_until and not self._gave_back:
                    ledger.release(ledger.unfinished(), RELEASED)
                    self._gave_back = True
                    waker.wake_one()
                if self._gave_back and not ledger.busy():
                    break
                self._wake.wait(DRAIN_TICK)
                continue
            if now >= poll_at:
                self._plan.hint()
                poll_at = now + s.poll_interval
                waker.wake_one()
            self._wake.wait(max(0.0, poll_at - now))
        self._loops_done.set()
        waker.wake_all()
        for thread in self._loop_threads:
            thread.join(timeout=LOOP_JOIN_TIMEOUT)
        if self._stop_now:
            self._give_back_unstarted()
            ledger.release(ledger.unfinished(), RELEASED)
        if ledger.pending():
            self._last_round()

    def _claim_loop(self, i: int) -> None:
        """One claim loop: rounds of (outcomes, releases, a claim) on its own pooled connection."""
        s, ledger, pool, waker, plan = self.settings, self._ledger, self.pool, self._waker, self._plan
        assert pool is not None
        backoff = Backoff()
        conn: psycopg.Connection[Any] | None = None
        try:
            while not self._loops_done.is_set():
                waker.arm(i)
                can_claim = not self._stopping and self._owner_ready and ledger.free > 0 and plan.any()
                if not ledger.worth_a_round(can_claim):
                    waker.wait(i, IDLE_WAIT)
                    continue
                waker.disarm(i)
                rnd = ledger.take_round(claim=can_claim)
                if rnd.empty:
                    continue
                try:
                    if conn is None:
                        conn = pool.getconn(timeout=2.0)
                    sent = time.perf_counter()
                    answer = send(conn, rnd, lease=s.lease)
                    ledger.timed(time.perf_counter() - sent)
                except Exception as exc:  # noqa: BLE001 - every error is waited out; the loop must go on
                    ledger.carry(rnd)
                    if conn is not None:
                        pool.putconn(conn)
                        conn = None
                    self._loop_trouble(i, exc)
                    if self._stop_now or (self._gave_back and not is_transient(exc)):
                        self._give_up = True
                        self._wake.set()
                        break
                    self._loops_done.wait(backoff.next())
                    continue
                backoff.reset()
                if self._outage.recovered(i):
                    ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="claim loop")
                fresh = ledger.settle(rnd, answer)
                if not fresh:
                    continue
                if self._stopping:
                    ledger.release(fresh, RELEASED)
                    continue
                for ctx in fresh:
                    self._jobs.put(ctx)
                if rnd.claim is not None and len(fresh) == rnd.claim[1]:
                    waker.wake_one()  # a full claim: there is likely more, let another idle loop claim too
        finally:
            waker.disarm(i)
            if conn is not None:
                pool.putconn(conn)

    def _last_round(self) -> None:
        """Record what is left (outcomes, releases) in one try; whatever fails is reaped later."""
        assert self.pool is not None
        rnd = self._ledger.take_round(claim=False)
        conn: psycopg.Connection[Any] | None = None
        try:
            conn = self.pool.getconn(timeout=2.0)
            self._ledger.settle(rnd, send(conn, rnd, lease=self.settings.lease))
        except Exception as exc:  # noqa: BLE001
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component="shutdown", error=str(exc).strip(),
                    unrecorded=len(rnd.results) + len(rnd.releases))
        finally:
            if conn is not None:
                self.pool.putconn(conn)

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
            self._waker.wake_one()

    def _loop_trouble(self, i: int, exc: Exception) -> None:
        if not is_transient(exc):
            ev.emit(self.log, logging.ERROR, ev.DB_ERROR, component="claim loop", error=f"{type(exc).__name__}: {exc}")
        elif self._outage.failed(i):
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component="claim loop",
                    error=f"{type(exc).__name__}: {str(exc).strip()}")

    def _db_trouble(self, exc: Exception, backoff: Backoff, component: str) -> None:
        if not is_transient(exc):
            ev.emit(self.log, logging.ERROR, ev.DB_ERROR, component=component, error=f"{type(exc).__name__}: {exc}")
        elif backoff.failures == 0:
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component=component,
                    error=f"{type(exc).__name__}: {str(exc).strip()}")

    # -- handlers ---------------------------------------------------------------------------

    def _handler_loop(self) -> None:
        ledger, waker = self._ledger, self._waker
        while True:
            ctx = self._jobs.get()
            if ctx is None:
                return
            if self._stopping:  # claimed as the worker was stopping: give it back, not started
                ledger.release([ctx], RELEASED)
                waker.wake_one()
                continue
            started = time.perf_counter()
            result = self._run_one(ctx)
            if ledger.report_and_ask(result, time.perf_counter() - started, claim=not self._stopping):
                waker.wake_one()

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
                    self._plan.hint()  # notifications may have been missed while away: every loop claims
                    self._waker.wake_all()
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
                        self._waker.wake_one()  # one notification, one claim; a full claim wakes another loop
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
        self._loops_done.set()
        self._waker.wake_all()
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
