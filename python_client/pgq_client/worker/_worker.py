# WARNING: this file is generated from pgq_client/worker/_async_worker.py by tools/async_to_sync.py: do not edit it.
# Edit the async source and run `tools/async_to_sync.py` (make lint checks it is current).
"""The worker runtime, written once: the async source (``_async_worker.py``) and its generated threaded twin.

    from pgq_client import Worker, Worker

    Worker(send_email, "emails", concurrency=10).run()          # threads, until SIGTERM/SIGINT
    await Worker(send_email_async, "emails").run()         # tasks, in your event loop

``_worker.py`` (the threaded ``Worker``) is generated from the async source by
``tools/async_to_sync.py``: tasks become threads, ``await`` goes, and the few
primitives that differ come from the two compat modules (``_compat.py`` for
asyncio and ``_compat.py`` for threads, hand-written side by side). A fix made
in the source lands in both; ``make lint`` fails when the generated file is stale.

Concurrent parts (tasks here, threads in the threaded worker): ``claim_loops``
claim loops, each with its own pooled connection (completes, fails, releases
and the next claim in one statement: one round trip and one transaction per
round; several loops keep several rounds in flight, so their commits
overlap); one handler per slot of each lane; the listener (a dedicated
connection that holds the liveness key and LISTENs for NOTIFY pgq); the
maintenance loop (heartbeats, and ``q.reap`` about once a second, on one more
pooled connection); and the caller of :meth:`Worker.run`, the supervisor,
which keeps the poll timer and runs the shutdown sequence. Every decision
those parts take without I/O (claim sizes, slots, wake-ups, timing, the
shutdown steps) lives in ``_ledger.py``, ``_hints.py``, ``_wakeups.py`` and
``_supervisor.py``, which have unit tests of their own.
"""

from __future__ import annotations

import getpass
import logging
import os
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row, scalar_row
from psycopg_pool import ConnectionPool

from .. import _client, tracing
from .. import _queries as sql
from .._decoding import decode_each
from .._error_text import described
from ..context import LOST, RELEASED, JobCancelled, JobLost
from ..payloads import dumps
from . import events as ev
from ._claimed import ClaimedJob
from ._compat import (
    Event,
    Handle,
    Queue,
    QueueEmpty,
    call,
    call_hook,
    handler_threads,
    install_signals,
    join,
    spawn,
)
from ._hints import ClaimHints, Notice
from ._lanes import Lane
from ._ledger import Answer, Ledger, Result, ResultKind, Round, summary
from ._observer import NOTHING, Observer
from ._payload import InvalidPayload, convert
from ._round_trip import build, read, refuse_results
from ._supervisor import ReapClock, Step, Supervisor
from ._transient import Backoff, Outage, StartupError, fatal_reason, is_transient
from ._wakeups import Waker
from .options import WorkerOptions

MAINTENANCE_TICK = 0.2  # seconds between checks for due heartbeats and reaps
IDLE_WAIT = 1.0  # seconds an idle claim loop sleeps before it looks again unwoken (a safety net)
LOOP_JOIN_TIMEOUT = 5.0  # seconds the supervisor waits for the claim loops' last rounds at exit
LISTEN_SLICE = 0.5  # seconds the listener waits for notifications before checking for stop/ping
PING_EVERY = 5.0  # seconds between pings of the listener connection
PUSHED_BEAT_GAP = 0.2  # seconds: a cancel notification heartbeats a job at most this often
# The pool retries a failed connection with doubling delays; giving up after
# this many seconds (and starting over on the next request) keeps the gap
# between tries short, so a worker resumes within seconds of the database.
POOL_RECONNECT_TIMEOUT = 10.0

Connection = psycopg.Connection[Any]


@dataclass
class Hooks:
    """Lifecycle hooks (an :class:`~pgq_client.App` fills them): the place for start-up sync steps.

    startup: called with a connection once the start-up checks passed, before
    the first claim (e.g. declare schedules, configure queues); an error stops
    the worker. shutdown: called with no argument after the last round.
    """

    startup: list[Callable[..., Any]] = field(default_factory=list)
    shutdown: list[Callable[..., Any]] = field(default_factory=list)


class Worker:
    """Runs ``handler`` for the jobs of ``queues`` with at most ``concurrency`` at a time.

    handler: ``f(payload)`` or ``f(payload, job)`` where job is a
      :class:`~pgq_client.JobContext`. Returning completes the job; raising
      fails it with the traceback as the error (the queue's backoff and
      max_attempts apply); raising JobCancelled/JobLost records nothing.
    queues: one name or several (round robin over those with work); a
      malformed name raises ValueError here.
    payload: a pydantic model or a callable applied to each payload first; if
      it raises, the job is dead at once (retryable => false).
    options / keyword arguments: :class:`~pgq_client.worker.WorkerOptions`
      (database_url, concurrency, batch_size, claim_loops, lease,
      poll_interval, listen, pgbouncer, grace_period, reap_interval, name,
      connect_kwargs); an unknown name raises TypeError.
    """

    def __init__(
        self,
        handler: Callable[..., Any],
        queues: str | Sequence[str],
        *,
        payload: Any = None,
        options: WorkerOptions | None = None,
        logger: logging.Logger | None = None,
        **kwargs: Any,
    ) -> None:
        opts = WorkerOptions.build(options, **kwargs)
        lane = Lane.make(0, handler, tuple([queues] if isinstance(queues, str) else queues),
                         concurrency=opts.concurrency, batch_size=opts.batch_size, lease=opts.lease, payload=payload)
        self._setup([lane], opts, Hooks(), logger)

    @classmethod
    def from_lanes(cls, lanes: Sequence[Lane], options: WorkerOptions, *, hooks: Hooks | None = None,
                   logger: logging.Logger | None = None) -> Worker:
        """A worker serving several lanes (an App's tasks), sharing its connections and claim loops."""
        self = cls.__new__(cls)
        self._setup(lanes, options, hooks or Hooks(), logger)
        return self

    def _setup(self, lanes: Sequence[Lane], options: WorkerOptions, hooks: Hooks,
               logger: logging.Logger | None) -> None:
        self.options = options
        self.lanes = tuple(lanes)
        self.queues = tuple(q for lane in self.lanes for q in lane.queues)
        if len(set(self.queues)) != len(self.queues):
            raise ValueError(f"a queue may belong to one handler only, got {list(self.queues)}")
        self.log = logger or logging.getLogger(f"{ev.LOGGER_NAME}.worker")
        self._hooks = hooks
        self._pushed_beats: dict[int, float] = {}  # job id -> when a cancel notification last heartbeat it
        # Listening with a liveness key: enqueues notify only while an empty claim says we wait.
        self._hints = ClaimHints(self.queues, until_empty=options.listen and not options.pgbouncer)
        self._ledger = Ledger(self.lanes, options.loops, self._hints, self.log)
        self._ledger.listening = options.listen
        self._jobs: list[Queue[ClaimedJob | None]] = [Queue() for _ in self.lanes]
        self._waker = Waker(options.loops)  # idle claim loops wait here
        self._outage = Outage()
        self._wake = Event()  # the supervisor has something to look at
        self._halt = Event()  # background loops: stop now
        self._loops_done = Event()  # the supervisor is done: claim loops finish their round and exit
        self._stopping = False  # first signal: no more claims, let running jobs finish
        self._stop_now = False  # second signal: give everything back and exit
        self._give_up = False  # a claim loop could not record the last outcomes and gave up
        self._owner_ready = options.pgbouncer
        self._rekeyed_from: int | None = None
        self._url = ""
        self._role = ""
        self._background: list[Handle] = []
        self._handlers: list[Handle] = []
        self._loop_handles: list[Handle] = []
        self._runner: Handle | None = None
        self.pool: ConnectionPool[Any] | None = None
        self._threads = handler_threads(sum(lane.concurrency for lane in self.lanes if not lane.is_async))
        self._observer: Observer = NOTHING  # metrics_port given: the Prometheus observer, from run() on

    # -- public control -----------------------------------------------------------------

    @property
    def completed(self) -> int:
        """Jobs this worker has completed so far."""
        return self._ledger.completed_count

    @property
    def rounds_sent(self) -> int:
        """Round trips this worker has sent (or tried) so far: claims and outcome batches."""
        return self._ledger.rounds

    @property
    def peak_rounds_in_flight(self) -> int:
        """Most round trips this worker has had on their way at once (at most its claim loops)."""
        return self._ledger.peak_in_flight

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """(host, port) the metrics endpoint listens on once :meth:`run` started it; None with metrics off."""
        return getattr(self._observer, "address", None)

    def stop(self, *, now: bool = False) -> None:
        """Stop claiming and let running jobs finish (now=True: give them back and exit at once)."""
        if now:
            self._stop_now = True
        self._stopping = True
        self._wake.set()
        self._waker.wake_all()

    def start(self) -> Worker:
        """Run in the background (no signal handlers); stop with :meth:`stop` and :meth:`join`."""
        self._runner = spawn(self.run, False, name="pgq-worker")
        return self

    def join(self, timeout: float | None = None) -> bool:
        """Wait for a worker started with :meth:`start`; True once it has stopped."""
        if self._runner is None:
            return True
        join([self._runner], 1e9 if timeout is None else timeout, cancel=False)
        return _finished(self._runner)

    def run(self, install_signal_handlers: bool = True) -> None:
        """Work until stopped (SIGTERM/SIGINT, or :meth:`stop`). Never returns because the database went away.

        Raises :class:`~pgq_client.StartupError` at once, with the fix in its
        message, for what waiting cannot fix: no database configured, the
        database or role missing, a failed login, pgq not installed, missing
        grants, a transaction pooler without ``pgbouncer=True``.
        """
        o = self.options
        restore = install_signals(self._on_signal) if install_signal_handlers else None
        try:
            if o.metrics_port is not None:
                self._serve_metrics(o.metrics_host, o.metrics_port)
            if not self._preflight():
                return
            self.pool = ConnectionPool(
                self._url, min_size=o.pool_min_size, max_size=o.pool_size, kwargs=o.connection_kwargs("worker"),
                open=False, name=f"pgq-{o.name}", reconnect_timeout=POOL_RECONNECT_TIMEOUT,
            )
            self.pool.open(wait=False)
            served = self.metrics_address
            ev.emit(self.log, logging.INFO, ev.WORKER_STARTED, name=o.name, queues=",".join(self.queues),
                    concurrency=o.concurrency, batch_size=o.batch_size or "auto", claim_loops=o.loops,
                    pool=f"{o.pool_min_size}..{o.pool_size}", tasks=" ".join(lane.describe() for lane in self.lanes),
                    mode="pgbouncer" if o.pgbouncer else ("listen" if o.listen else "poll"),
                    **({"metrics": f"http://{served[0]}:{served[1]}/metrics"} if served else {}))
            for lane in self.lanes:
                for i in range(lane.concurrency):
                    self._handlers.append(spawn(self._handler_loop, lane.index, name=f"pgq-handler-{lane.name}-{i}"))
            if o.uses_listener:
                self._background.append(spawn(self._listener_loop, name="pgq-listener"))
            self._background.append(spawn(self._maintenance_loop, name="pgq-maintenance"))
            self._loop_handles = [spawn(self._claim_loop, i, name=f"pgq-claim-{i}") for i in range(o.loops)]
            try:
                self._supervise()
            finally:
                self._shutdown()
        finally:
            self._observer.close()
            if restore is not None:
                restore()

    def _serve_metrics(self, host: str, port: int) -> None:
        """Start the Prometheus endpoint (metrics_port); the hooks are the ledger's and the loops' below."""
        try:
            from ._prometheus import Books, PrometheusObserver
        except ImportError:
            raise self._failed("metrics_port needs prometheus_client: pip install 'pgq-client[metrics]'") from None
        o, ledger = self.options, self._ledger
        mode = "pgbouncer" if o.pgbouncer else ("listen" if o.listen else "poll")
        books = Books(ledger.held_jobs, lambda: ledger.rounds, lambda: ledger.in_flight)
        observer = PrometheusObserver(self.queues, books, name=o.name, mode=mode)
        try:
            observer.serve(host, port)
        except OSError as exc:
            raise self._failed(f"cannot serve metrics on {host}:{port}: {exc.strerror or exc}") from None
        self._observer = ledger.observer = observer
        self.log = ledger.log = ev.ObservedLogger(self.log, observer.event)

    # -- start-up: checks that fail fast -------------------------------------------------------

    def _preflight(self) -> bool:
        """Connect once and check the database; False if stopped while waiting for it to come up."""
        try:
            self._url = self.options.resolved_url()
        except ValueError as exc:
            raise self._failed(str(exc)) from None
        backoff = Backoff()
        while not self._stopping:
            try:
                with psycopg.Connection.connect(
                    self._url, **self.options.connection_kwargs("startup")
                ) as conn:
                    self._check_schema(conn)
                    if not self.options.pgbouncer:
                        self._check_session_pooling(conn)
                    for hook in self._hooks.startup:
                        call_hook(hook, conn)
                if backoff.reset():
                    ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="start-up")
                return True
            except StartupError as exc:
                raise self._failed(str(exc)) from exc
            except Exception as exc:  # noqa: BLE001 - sorted into "cannot fix itself" and "wait it out"
                reason = fatal_reason(exc, role=self._role or self._url_user())
                if reason is not None:
                    raise self._failed(reason) from exc
                self._db_trouble(exc, backoff, "start-up")
                self._wake.wait_for(backoff.next())
                self._wake.clear()
        return False

    def _failed(self, reason: str) -> StartupError:
        # Raised, not logged: the caller (the pgq command) prints it as its one line.
        return StartupError(reason)

    def _url_user(self) -> str:
        try:
            user = conninfo_to_dict(self._url).get("user")
        except psycopg.ProgrammingError:
            user = None
        return str(user or os.environ.get("PGUSER") or getpass.getuser())

    def _check_schema(self, conn: Connection) -> None:
        """pgq installed, and this role may call what a worker calls."""
        self._role = str(_scalar(conn, sql.CURRENT_USER))
        with conn.cursor(row_factory=dict_row) as cur:
            cur.execute(sql.CHECK_FUNCTIONS, (list(sql.WORKER_FUNCTIONS),))
            found = {row["proname"]: row["allowed"] for row in cur.fetchall()}
        missing = [f"q.{name}" for name in sql.WORKER_FUNCTIONS if name not in found]
        if missing:
            raise StartupError(f"pgq is not installed in this database (missing {', '.join(missing)}):"
                               " run `pgq migrate` (alembic upgrade head)")
        denied = sorted(f"q.{name}" for name, allowed in found.items() if not allowed)
        if denied:
            raise StartupError(f"role {self._role} may not call {', '.join(denied)}: grant pgq_worker to {self._role}")

    def _check_session_pooling(self, conn: Connection) -> None:
        """Refuse a transaction pooler: the liveness connection must keep one server session."""
        first = _scalar(conn, sql.BACKEND_PID)
        kwargs = self.options.connection_kwargs("startup")
        with psycopg.Connection.connect(self._url, **kwargs) as other:
            with other.transaction():
                other.execute(sql.BACKEND_PID_HELD)
                second = _scalar(conn, sql.BACKEND_PID)
        if first != second:
            raise StartupError(
                f"the connection changed server backends between two transactions (pid {first}, then {second}):"
                " this looks like PgBouncer in transaction mode, where the liveness lock and LISTEN cannot work"
                " (a killed worker's jobs would wait for their lease); pass pgbouncer=True (pgq worker"
                " --pgbouncer) or connect to PostgreSQL directly"
            )

    # -- the claim loops and their supervisor ---------------------------------------------------

    def _on_signal(self) -> None:
        self.stop(now=self._stopping)

    def _supervise(self) -> None:
        """The poll timer and the shutdown sequence (decided by _supervisor.Supervisor); the claim loops do the rest."""
        o, ledger, waker = self.options, self._ledger, self._waker
        supervisor = Supervisor.start(time.monotonic(), o.poll_interval, o.grace_period)
        while not self._stop_now and not self._give_up:
            self._wake.clear()
            now = time.monotonic()
            if self._hints.release_due(now):
                waker.wake_one()  # a rate limit's next slot is free
            steps, timeout = supervisor.step(now, stopping=self._stopping, in_hand=ledger.in_hand,
                                             busy=ledger.busy())
            due = self._hints.next_due()
            if due is not None and not self._stopping:
                timeout = max(0.0, min(timeout, due - now))
            if Step.EXIT in steps:
                break
            for step in steps:
                if step is Step.POLL:
                    self._hints.hint()
                    waker.wake_one()
                elif step is Step.BEGIN_STOP:
                    ev.emit(self.log, logging.INFO, ev.WORKER_STOPPING, name=o.name, running=ledger.in_hand,
                            grace_period=o.grace_period)
                    ledger.mark_stopping()
                    self._give_back_unstarted()
                    waker.wake_all()  # no more claims; the releases go out at once
                elif step is Step.GIVE_BACK:
                    ledger.release(ledger.unfinished(), RELEASED)
                    waker.wake_one()
            if timeout > 0:
                self._wake.wait_for(timeout)
        self._loops_done.set()
        waker.wake_all()
        join(self._loop_handles, LOOP_JOIN_TIMEOUT, cancel=False)
        if self._stop_now:
            self._give_back_unstarted()
            ledger.release(ledger.unfinished(), RELEASED)
        if ledger.pending():
            self._last_round()

    def _claim_loop(self, i: int) -> None:
        """One claim loop: rounds of (outcomes, releases, a claim) on its own pooled connection."""
        ledger, pool, waker, hints = self._ledger, self.pool, self._waker, self._hints
        assert pool is not None
        backoff = Backoff()
        conn: Connection | None = None
        try:
            while not self._loops_done.is_set():
                waker.arm(i)
                can_claim = not self._stopping and self._owner_ready and ledger.any_free() and hints.any()
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
                    answer = send_round(conn, rnd)
                    seconds = time.perf_counter() - sent
                    ledger.timed(seconds)
                    if rnd.claim is not None:
                        self._observer.claimed(rnd.claim.queue, rnd.claim.n, len(answer.claimed), seconds)
                except Exception as exc:  # noqa: BLE001 - every error is waited out; the loop must go on
                    refuse_results(rnd, exc)  # an over-size result fails its job; the round goes again
                    ledger.carry(rnd)
                    if conn is not None:
                        pool.putconn(conn)
                        conn = None
                    self._loop_trouble(i, exc)
                    if self._stop_now or (self._stopping and not is_transient(exc)):
                        self._give_up = True
                        self._wake.set()
                        break
                    self._loops_done.wait_for(backoff.next())
                    continue
                backoff.reset()
                if self._outage.recovered(i):
                    ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="claim loop")
                self._dispatch(rnd, ledger.settle(rnd, answer, pool.connection))
                if answer.blocked or hints.take_sooner():
                    self._wake.set()  # the supervisor keeps the timers (flow control, debounced notifications)
        finally:
            waker.disarm(i)
            if conn is not None:
                pool.putconn(conn)

    def _dispatch(self, rnd: Round, fresh: list[ClaimedJob]) -> None:
        """Hand newly claimed jobs to their lanes' handlers (or give them back when stopping)."""
        if fresh and self._stopping:
            self._ledger.release(fresh, RELEASED)
        elif fresh:
            for ctx in fresh:
                self._jobs[ctx.lane].put_nowait(ctx)
            if rnd.claim is not None and len(fresh) == rnd.claim.n:
                self._waker.wake_one()  # a full claim: there is likely more, let another idle loop claim too

    def _last_round(self) -> None:
        """Record what is left (outcomes, releases) in one try; whatever fails is reaped later."""
        assert self.pool is not None
        rnd = self._ledger.take_round(claim=False)
        conn: Connection | None = None
        try:
            conn = self.pool.getconn(timeout=2.0)
            self._ledger.settle(rnd, send_round(conn, rnd))
        except Exception as exc:  # noqa: BLE001
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component="shutdown", error=str(exc).strip(),
                    unrecorded=len(rnd.results) + len(rnd.releases))
        finally:
            if conn is not None:
                self.pool.putconn(conn)

    def _give_back_unstarted(self) -> None:
        unstarted = []
        for jobs in self._jobs:
            while True:
                try:
                    ctx = jobs.get_nowait()
                except QueueEmpty:
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

    def _handler_loop(self, lane_index: int) -> None:
        lane, jobs, ledger, waker = self.lanes[lane_index], self._jobs[lane_index], self._ledger, self._waker
        while True:
            ctx = jobs.get()
            if ctx is None:
                return
            if self._stopping:  # claimed as the worker was stopping: give it back, not started
                ledger.release([ctx], RELEASED)
                waker.wake_one()
                continue
            try:
                result = run_job(lane, ctx, self._threads)
            except Exception as exc:  # noqa: BLE001 - a handler slot must outlive any one job
                short = described(exc)
                result = Result(ResultKind.FAIL, ctx, f"the worker could not run this job: {short}", short)
            if ledger.report(result):
                waker.wake_one()

    # -- the listener: liveness key and LISTEN ---------------------------------------

    def _listener_loop(self) -> None:
        o, ledger = self.options, self._ledger
        backoff = Backoff()
        while not self._halt.is_set():
            try:
                with psycopg.Connection.connect(self._url, **o.connection_kwargs("listener")) as conn:
                    key = _client.session_key(conn)
                    ledger.clock_skew = _clock_skew(conn)
                    if o.listen:
                        conn.execute(sql.LISTEN)
                    # q.cancel of one of our running jobs says so on our key's channel (revision 0009).
                    conn.execute(sql.listen_cancels(key))
                    previous, held = ledger.rekey(key)
                    if held and not self._adopt(conn, key, held) and previous:
                        # A database before revision 0009 (no q.adopt): our old key is free now, so
                        # peers will reap its jobs; the maintenance loop reaps them at once and
                        # tells their handlers (the heartbeat says lost).
                        self._rekeyed_from = previous
                    self._owner_ready = True
                    ev.emit(self.log, logging.INFO, ev.LISTENER_CONNECTED, session_key=key, listen=o.listen)
                    if backoff.reset():
                        ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="listener")
                    self._hints.hint()  # notifications may have been missed while away: every loop claims
                    self._waker.wake_all()
                    self._listen(conn)
                    if o.listen:
                        self._stop_waiting(conn, key)
            except Exception as exc:  # noqa: BLE001
                self._owner_ready = False
                self._db_trouble(exc, backoff, "listener")
                self._halt.wait_for(backoff.next())

    def _adopt(self, conn: Connection, key: int, held: list[ClaimedJob]) -> bool:
        """Take the claims we still hold back under our new key (q.adopt); False on a database without it.

        Restart without re-runs: after a server restart or a failover the
        reaper leaves claims whose session ended with the server to their
        worker for q.restart_grace() (30 s, at most the lease). A claim not
        moved was reaped (or finished) meanwhile: its handler hears it is
        lost, and its result will be refused. Adopted claims heartbeat at the
        next maintenance tick (heartbeats failed while the database was away).
        """
        try:
            moved = set(_client.adopt(conn, [c.job for c in held], key))
        except psycopg.errors.UndefinedFunction:
            return False
        lost = 0
        for ctx in held:
            if ctx.id in moved:
                ctx.owner = key
                ctx.next_beat = 0.0
            elif not ctx.finished and ctx.stop(LOST):
                lost += 1
                self._observer.lost(ctx.queue)
                ev.emit(self.log, logging.WARNING, ev.JOB_LOST, job_id=ctx.id, queue=ctx.queue,
                        reason="taken back while the connection was away; not adopted")
        ev.emit(self.log, logging.INFO, ev.JOBS_ADOPTED, count=len(moved), lost=lost, session_key=key)
        return True

    def _listen(self, conn: Connection) -> None:
        pinged = time.monotonic()
        listen = self.options.listen
        while not self._halt.is_set():
            news = False
            cancelled: set[int] = set()
            # stop_after=1: out of the generator (which holds the connection) to claim on it;
            # notifications that arrive meanwhile wait in psycopg's backlog.
            for note in conn.notifies(timeout=LISTEN_SLICE, stop_after=1):
                if note.channel.startswith(sql.CANCEL_CHANNEL_PREFIX):
                    if note.payload.isdigit():
                        cancelled.add(int(note.payload))
                elif listen:
                    # Debounced per queue (_hints.NOTIFY_DEBOUNCE): a flood of NOTIFYs, which any role
                    # may send, costs at most one empty claim per queue per slice.
                    news = self._hints.notified(note.payload, time.monotonic()) is Notice.CLAIM or news
            if cancelled:
                self._pushed_cancel(conn, cancelled)
            if listen:
                if self._hints.take_sooner():
                    self._wake.set()  # a debounced queue's claim is due at the slice's end: the supervisor's timer
                if news and not self._claim_here(conn):
                    self._waker.wake_one()  # one notification, one claim; a full claim wakes another loop
            if time.monotonic() - pinged >= PING_EVERY:
                conn.execute(sql.PING)
                pinged = time.monotonic()

    def _pushed_cancel(self, conn: Connection, ids: set[int]) -> None:
        """q.cancel said (NOTIFY pgq_cancel_<our key>) that jobs we run were cancelled: stop them now.

        Any role may send a NOTIFY, so the notification only makes these jobs' heartbeat
        due now, on this connection: the database's answer ('cancelled', for the
        cancelled claim's token alone) is what stops a handler, as at a regular heartbeat.
        An async handler's task is cancelled; a thread's handler sees ``should_stop``
        (and ``wait`` returns). Ids we do not hold are ignored.
        """
        ledger = self._ledger
        with ledger.lock:
            held = [ledger.held[i] for i in ids if i in ledger.held]
        # A flood of NOTIFYs (any role may send them) costs at most one heartbeat per job per
        # PUSHED_BEAT_GAP; a job heartbeaten for one more recently gets its next beat that much
        # after it, from the maintenance loop.
        now, pushed = time.monotonic(), self._pushed_beats
        due = []
        for c in held:
            if c.should_stop or c.finished:
                continue
            last = pushed.get(c.id)
            if last is None or now - last >= PUSHED_BEAT_GAP:
                pushed[c.id] = now
                due.append(c)
            else:
                c.next_beat = min(c.next_beat, last + PUSHED_BEAT_GAP)
        if len(pushed) > 2 * len(ledger.held) + 100:  # forget finished jobs' entries
            for job_id in [i for i, at in pushed.items() if now - at >= PUSHED_BEAT_GAP]:
                del pushed[job_id]
        for lease, group in _by_lease(ledger, due):
            ledger.heartbeat_answer(group, _client.heartbeat_many(conn, [c.job for c in group], lease=lease))

    def _stop_waiting(self, conn: Connection, key: int) -> None:
        """A clean stop: end this worker's waits (q.stop_waiting), so no enqueue wakes a worker that is gone.

        Best effort: before revision 0009 there is no such function, and a
        wait left behind costs one needless NOTIFY (the next enqueue into its
        queue takes it) until q.reap sees the session gone.
        """
        try:
            conn.execute(sql.STOP_WAITING, (key,))
        except psycopg.Error as exc:
            ev.emit(self.log, logging.DEBUG, ev.DB_ERROR, component="stop waiting", error=summary(exc))

    def _claim_here(self, conn: Connection) -> bool:
        """An idle worker claims on the listener's own connection, at once: no hop to a claim loop.

        Only when no round is on its way (the claim loops are idle; under load
        they carry the claims). The connection holds the liveness key the
        claim records. False when there is nothing to claim here: the caller
        wakes a claim loop instead. An error propagates (the listener
        reconnects) after the round's outcomes are handed back.
        """
        ledger, pool = self._ledger, self.pool
        if pool is None or ledger.in_flight > 0 or self._stopping or not self._owner_ready:
            return False
        if not (ledger.any_free() and self._hints.any()):
            return False
        rnd = ledger.take_round(claim=True)
        if rnd.claim is None:
            if not rnd.empty:
                ledger.carry(rnd)  # outcomes only: a claim loop sends them
            return False
        try:
            sent = time.perf_counter()
            answer = send_round(conn, rnd)
            self._observer.claimed(rnd.claim.queue, rnd.claim.n, len(answer.claimed), time.perf_counter() - sent)
        except BaseException as exc:
            if isinstance(exc, Exception):
                refuse_results(rnd, exc)
            ledger.carry(rnd)
            raise
        self._dispatch(rnd, ledger.settle(rnd, answer, pool.connection))
        if len(answer.claimed) < rnd.claim.n and self._hints.worth(rnd.claim.queue):
            # Short but not empty, or the claim that started our wait: a claim loop looks once more
            # (only an empty claim makes enqueues notify us: _hints.py, wake-ups on demand).
            self._waker.wake_one()
        if answer.blocked or self._hints.take_sooner():
            self._wake.set()  # the supervisor keeps the timers (flow control, debounced notifications)
        return True

    # -- maintenance: heartbeats and the reaper --------------------------------------

    def _maintenance_loop(self) -> None:
        o, ledger, pool = self.options, self._ledger, self.pool
        assert pool is not None
        backoff = Backoff()
        conn: Connection | None = None
        reaps = ReapClock.start(time.monotonic(), o.reap_interval)
        try:
            while not self._halt.wait_for(MAINTENANCE_TICK):
                try:
                    if conn is None:
                        conn = pool.getconn(timeout=2.0)
                        if o.pgbouncer:  # no listener to measure the clock against the database's
                            ledger.clock_skew = _clock_skew(conn)
                    rekeyed = self._rekeyed_from
                    if rekeyed is not None:
                        # Our old key is free now, so peers will reap its jobs: reap them ourselves
                        # at once and tell their handlers (the heartbeat says lost).
                        _client.reap(conn)
                        reaps.reaped_early(time.monotonic())
                        self._rekeyed_from = None
                    for lease, due in _by_lease(ledger, ledger.due_heartbeats(all_of_owner=rekeyed)):
                        # Progress (ctx.progress) rides on the heartbeat; sent once, unless replaced meanwhile.
                        progress = [c.pending_progress for c in due]
                        ledger.heartbeat_answer(
                            due, _client.heartbeat_many(conn, [c.job for c in due], lease=lease, progress=progress))
                        for c, sent_value in zip(due, progress, strict=True):
                            if sent_value is not None and c.pending_progress is sent_value:
                                c.pending_progress = None
                    if reaps.due(time.monotonic()):
                        sent = time.perf_counter()
                        reaped = _client.reap(conn)
                        self._observer.reaped(reaped, time.perf_counter() - sent)
                        reaps.reaped(time.monotonic())
                        if reaped:
                            ev.emit(self.log, logging.INFO, ev.JOBS_REAPED, count=reaped)
                            # Recovered jobs are waiting again: claim them now, not on the next poll
                            # (the NOTIFY hint is skipped while the notification queue is filling).
                            self._hints.hint()
                            self._waker.wake_all()
                    backoff.reset()
                except Exception as exc:  # noqa: BLE001
                    if conn is not None:
                        pool.putconn(conn)
                        conn = None
                    if not is_transient(exc):
                        self._db_trouble(exc, backoff, "maintenance")
                    self._halt.wait_for(backoff.next())
        finally:
            if conn is not None:
                pool.putconn(conn)

    # -- stop -----------------------------------------------------------------------------------

    def _shutdown(self) -> None:
        self._loops_done.set()
        self._waker.wake_all()
        join(self._loop_handles, 0.1)
        self._halt.set()
        for lane, jobs in zip(self.lanes, self._jobs, strict=True):
            for _ in range(lane.concurrency):
                jobs.put_nowait(None)
        join(self._background, 2.0)
        # Idle handlers exit on the None above; busy ones (grace period over) no longer count:
        # threads are daemons, not waited for; tasks are cancelled.
        join(self._handlers, 0.0)
        if self.pool is not None:
            self.pool.close(timeout=2.0)
        for hook in self._hooks.shutdown:
            try:
                call_hook(hook)
            except Exception as exc:  # noqa: BLE001 - a hook's failure must not hide the stop
                ev.emit(self.log, logging.ERROR, ev.DB_ERROR, component="shutdown hook", error=summary(exc))
        if self._threads is not None:
            self._threads.shutdown(wait=False)
        ev.emit(self.log, logging.INFO, ev.WORKER_STOPPED, name=self.options.name, completed=self.completed)


def run_job(lane: Lane, ctx: ClaimedJob, threads: Any = None) -> Result:
    """Run one job's handler and say what to record: complete, fail (traceback), dead (bad payload) or nothing.

    With OpenTelemetry set up, the run is a span (``process <queue>``), a
    child of the producer's when the payload carries its context
    (:func:`pgq_client.tracing.inject`); the carrier is taken out of the payload first.
    """
    started = time.perf_counter()
    ctx.started = started
    payload, carrier = tracing.split(ctx.job.payload)
    span = tracing.begin(ctx.queue, ctx.id, ctx.attempt, carrier)
    try:
        try:
            ctx.payload = convert(lane.convert, payload)
        except InvalidPayload as exc:
            cause = exc.__cause__ or exc
            if span is not None:
                span.failed(cause, summary(cause))
            return Result(ResultKind.DEAD, ctx, str(exc), summary(cause), time.perf_counter() - started)
        args = (ctx.payload, ctx) if lane.with_context else (ctx.payload,)
        try:
            value = call(lane.handler, args, lane.is_async, threads, ctx)
        except (JobCancelled, JobLost):
            return Result(ResultKind.DROP, ctx, seconds=time.perf_counter() - started)
        except BaseException as exc:  # noqa: BLE001 - a handler's failure is data for q.fail
            short = summary(exc)
            if span is not None:
                span.failed(exc, short)
            return Result(ResultKind.FAIL, ctx, traceback.format_exc(), short, time.perf_counter() - started)
        if ctx.should_stop:
            return Result(ResultKind.DROP, ctx, seconds=time.perf_counter() - started)
        # The return value is the job's result (q.complete(result => ...)), encoded here so that a
        # value the encoder cannot write fails this job, not the round that carries it.
        try:
            encoded = None if value is None else dumps(value)
        except (TypeError, ValueError) as exc:
            return Result(ResultKind.FAIL, ctx, f"the handler's return value cannot be stored as its result: {exc}",
                          summary(exc), time.perf_counter() - started)
        return Result(ResultKind.COMPLETE, ctx, seconds=time.perf_counter() - started, value=encoded)
    finally:
        if span is not None:
            span.end()




def send_round(conn: Connection, rnd: Round) -> Answer:
    """Send a round on an autocommit connection (one statement, one transaction) and read the answer."""
    built = build(rnd)
    if built is None:
        return Answer()
    with conn.cursor() as cur:
        decode_each(cur)  # a claimed job whose payload Python cannot decode spoils only itself
        cur.execute(*built)
        rows = cur.fetchall()
        return read([c.name for c in cur.description or ()], rows)


def _scalar(conn: Connection, query: str) -> Any:
    with conn.cursor(row_factory=scalar_row) as cur:
        cur.execute(query)
        return cur.fetchone()


def _clock_skew(conn: Connection) -> timedelta:
    """The database's clock minus ours (leases are the database's times)."""
    db_now: datetime = _scalar(conn, sql.CLOCK)
    return db_now - datetime.now(timezone.utc)


def _by_lease(ledger: Ledger, due: list[ClaimedJob]) -> list[tuple[timedelta | None, list[ClaimedJob]]]:
    """Due heartbeats grouped by their lane's lease (one heartbeat_many per lease)."""
    groups: dict[timedelta | None, list[ClaimedJob]] = {}
    for ctx in due:
        groups.setdefault(ledger.lane_lease(ctx), []).append(ctx)
    return list(groups.items())


def _finished(handle: Handle) -> bool:
    return not handle.is_alive()
