"""The asyncio twin of :class:`pgq_client.Worker`.

    from pgq_client.aio_worker import AsyncWorker

    async def send_email(payload):
        ...

    asyncio.run(AsyncWorker(send_email, "emails", concurrency=50).run())

Same settings, bookkeeping (:mod:`pgq_client.ledger`) and round trips
(:mod:`pgq_client.round_trip`) as the threaded worker, on an
``AsyncConnectionPool``; handlers are coroutines (plain functions run in a
thread). Tasks replace threads: ``claim_loops`` claim tasks (each with its
own pooled connection, so several rounds are in flight at once),
``concurrency`` handler tasks, the listener, the maintenance loop, and
:meth:`AsyncWorker.run` itself, which keeps the poll timer and runs the
shutdown sequence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import signal
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from . import aio
from . import events as ev
from . import statements as sql
from .claim_plan import ClaimPlan
from .handlers import is_async, wants_context
from .job_context import RELEASED, JobCancelled, JobContext, JobLost
from .ledger import COMPLETE, DEAD, DROP, FAIL, Ledger, Result
from .payload_hook import InvalidPayload, convert, converter
from .round_trip import send_async
from .transient import Backoff, Outage, is_transient
from .wakeups import AsyncWaker
from .worker import (
    DRAIN_TICK,
    IDLE_WAIT,
    LISTEN_SLICE,
    LOOP_JOIN_TIMEOUT,
    MAINTENANCE_TICK,
    PING_EVERY,
    POOL_RECONNECT_TIMEOUT,
)
from .worker_settings import WorkerSettings


class AsyncWorker:
    """Runs an async ``handler`` for the jobs of ``queues``; arguments as for :class:`pgq_client.Worker`."""

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
        self._async_handler = is_async(handler)
        self._convert = converter(payload)
        self._plan = ClaimPlan(self.settings.queues)
        self._ledger = Ledger(self.settings, self._plan, self.log)
        self._stopping = False
        self._stop_now = False
        self._gave_back = False
        self._give_up = False
        self._loops_done = False
        self._outage = Outage()
        self._waker: AsyncWaker | None = None
        self._loop_tasks: list[asyncio.Task[None]] = []
        self._owner_ready = self.settings.pgbouncer
        self._rekeyed_from: int | None = None
        self._jobs: asyncio.Queue[JobContext | None] | None = None
        self._wake: asyncio.Event | None = None
        self._halt: asyncio.Event | None = None
        self.pool: AsyncConnectionPool[Any] | None = None

    @property
    def completed(self) -> int:
        return self._ledger.completed_count

    @property
    def peak_rounds_in_flight(self) -> int:
        """Most round trips this worker has had on their way at once (at most its claim loops)."""
        return self._ledger.peak_in_flight

    def stop(self, *, now: bool = False) -> None:
        """Stop claiming and let running jobs finish (now=True: give them back and exit). Call from the loop."""
        if now:
            self._stop_now = True
        self._stopping = True
        if self._wake is not None:
            self._wake.set()
        if self._waker is not None:
            self._waker.wake_all()

    async def run(self, *, install_signal_handlers: bool = True) -> None:
        s = self.settings
        self._jobs, self._wake, self._halt = asyncio.Queue(), asyncio.Event(), asyncio.Event()
        self._waker = AsyncWaker(s.loops)
        loop = asyncio.get_running_loop()
        signals: list[int] = []
        if install_signal_handlers:
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(sig, lambda: self.stop(now=self._stopping))
                    signals.append(sig)
        self.pool = AsyncConnectionPool(
            s.database_url, min_size=s.loops + 1, max_size=s.pool_size, kwargs=s.connection_kwargs("worker"),
            open=False, name=f"pgq-{s.name}", reconnect_timeout=POOL_RECONNECT_TIMEOUT,
        )
        await self.pool.open(wait=False)
        ev.emit(self.log, logging.INFO, ev.WORKER_STARTED, name=s.name, queues=",".join(s.queues),
                concurrency=s.concurrency, batch_size=s.batch_size or "auto", claim_loops=s.loops,
                mode="pgbouncer" if s.pgbouncer else ("listen" if s.listen else "poll"))
        handlers = [asyncio.create_task(self._handler_loop()) for _ in range(s.concurrency)]
        background = [asyncio.create_task(self._maintenance_loop())]
        if s.uses_listener:
            background.append(asyncio.create_task(self._listener_loop()))
        self._loop_tasks = [asyncio.create_task(self._claim_loop(i)) for i in range(s.loops)]
        try:
            await self._supervise()
        finally:
            self._loops_done = True
            self._waker.wake_all()
            for task in self._loop_tasks:
                task.cancel()
            await asyncio.gather(*self._loop_tasks, return_exceptions=True)
            self._halt.set()
            for _ in handlers:
                self._jobs.put_nowait(None)
            await asyncio.wait(background, timeout=2.0)
            for task in background + handlers:
                task.cancel()
            await asyncio.gather(*background, *handlers, return_exceptions=True)
            await self.pool.close(timeout=2.0)
            for sig in signals:
                loop.remove_signal_handler(sig)
            ev.emit(self.log, logging.INFO, ev.WORKER_STOPPED, name=s.name, completed=self.completed)

    # -- the claim tasks and their supervisor -------------------------------------------------

    async def _supervise(self) -> None:
        """The poll timer and the shutdown sequence; the claim tasks do the round trips."""
        s, ledger, waker, wake = self.settings, self._ledger, self._waker, self._wake
        assert waker is not None and wake is not None
        poll_at = time.monotonic() + s.poll_interval
        draining_until: float | None = None
        while not self._stop_now and not self._give_up:
            wake.clear()
            now = time.monotonic()
            if self._stopping and draining_until is None:
                draining_until = now + s.grace_period
                ev.emit(self.log, logging.INFO, ev.WORKER_STOPPING, name=s.name, running=ledger.in_hand,
                        grace_period=s.grace_period)
                ledger.mark_stopping()
                self._give_back_unstarted()
                waker.wake_all()
            if draining_until is not None:
                if ledger.in_hand <= 0 and not ledger.busy():
                    break
                if now >= draining_until and not self._gave_back:
                    ledger.release(ledger.unfinished(), RELEASED)
                    self._gave_back = True
                    waker.wake_one()
                if self._gave_back and not ledger.busy():
                    break
                timeout = DRAIN_TICK
            else:
                if now >= poll_at:
                    self._plan.hint()
                    poll_at = now + s.poll_interval
                    waker.wake_one()
                timeout = max(0.0, poll_at - now)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout)
        self._loops_done = True
        waker.wake_all()
        await asyncio.wait(self._loop_tasks, timeout=LOOP_JOIN_TIMEOUT)
        if self._stop_now:
            self._give_back_unstarted()
            ledger.release(ledger.unfinished(), RELEASED)
        if ledger.pending():
            await self._last_round()

    async def _claim_loop(self, i: int) -> None:
        """One claim task: rounds of (outcomes, releases, a claim) on its own pooled connection."""
        s, ledger, pool, waker, plan = self.settings, self._ledger, self.pool, self._waker, self._plan
        assert pool is not None and waker is not None and self._jobs is not None
        backoff = Backoff()
        conn: psycopg.AsyncConnection[Any] | None = None
        try:
            while not self._loops_done:
                waker.arm(i)
                can_claim = not self._stopping and self._owner_ready and ledger.free > 0 and plan.any()
                if not ledger.worth_a_round(can_claim):
                    await waker.wait(i, IDLE_WAIT)
                    continue
                waker.disarm(i)
                rnd = ledger.take_round(claim=can_claim)
                if rnd.empty:
                    await asyncio.sleep(0)
                    continue
                try:
                    if conn is None:
                        conn = await pool.getconn(timeout=2.0)
                    sent = time.perf_counter()
                    answer = await send_async(conn, rnd, lease=s.lease)
                    ledger.timed(time.perf_counter() - sent)
                except Exception as exc:  # noqa: BLE001 - every error is waited out
                    ledger.carry(rnd)
                    if conn is not None:
                        await pool.putconn(conn)
                        conn = None
                    self._loop_trouble(i, exc)
                    if self._stop_now or (self._gave_back and not is_transient(exc)):
                        self._give_up = True
                        self._wake_supervisor()
                        break
                    await self._sleep(backoff.next())
                    continue
                backoff.reset()
                if self._outage.recovered(i):
                    ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="claim loop")
                fresh = ledger.settle(rnd, answer)
                if fresh and self._stopping:
                    ledger.release(fresh, RELEASED)
                elif fresh:
                    for ctx in fresh:
                        self._jobs.put_nowait(ctx)
                    if rnd.claim is not None and len(fresh) == rnd.claim[1]:
                        waker.wake_one()  # a full claim: there is likely more, let another idle task claim too
                await asyncio.sleep(0)  # let handlers run between back-to-back rounds
        finally:
            waker.disarm(i)
            if conn is not None:
                await pool.putconn(conn)

    async def _last_round(self) -> None:
        """Record what is left (outcomes, releases) in one try; whatever fails is reaped later."""
        assert self.pool is not None
        rnd = self._ledger.take_round(claim=False)
        conn: psycopg.AsyncConnection[Any] | None = None
        try:
            conn = await self.pool.getconn(timeout=2.0)
            self._ledger.settle(rnd, await send_async(conn, rnd, lease=self.settings.lease))
        except Exception as exc:  # noqa: BLE001
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component="shutdown", error=str(exc).strip(),
                    unrecorded=len(rnd.results) + len(rnd.releases))
        finally:
            if conn is not None:
                await self.pool.putconn(conn)

    def _wake_supervisor(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _loop_trouble(self, i: int, exc: Exception) -> None:
        if not is_transient(exc):
            ev.emit(self.log, logging.ERROR, ev.DB_ERROR, component="claim loop", error=f"{type(exc).__name__}: {exc}")
        elif self._outage.failed(i):
            ev.emit(self.log, logging.WARNING, ev.DB_UNAVAILABLE, component="claim loop",
                    error=f"{type(exc).__name__}: {str(exc).strip()}")

    async def _sleep(self, seconds: float) -> None:
        assert self._halt is not None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._halt.wait(), seconds)

    def _give_back_unstarted(self) -> None:
        assert self._jobs is not None
        unstarted = []
        while not self._jobs.empty():
            ctx = self._jobs.get_nowait()
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

    async def _handler_loop(self) -> None:
        assert self._jobs is not None and self._waker is not None
        ledger, waker = self._ledger, self._waker
        while True:
            ctx = await self._jobs.get()
            if ctx is None:
                return
            if self._stopping:  # claimed as the worker was stopping: give it back, not started
                ledger.release([ctx], RELEASED)
                waker.wake_one()
                continue
            started = time.perf_counter()
            result = await self._run_one(ctx)
            if ledger.report_and_ask(result, time.perf_counter() - started, claim=not self._stopping):
                waker.wake_one()

    async def _run_one(self, ctx: JobContext) -> Result:
        try:
            ctx.payload = convert(self._convert, ctx.job.payload)
        except InvalidPayload as exc:
            return Result(DEAD, ctx, str(exc))
        args = (ctx.payload, ctx) if self._with_context else (ctx.payload,)
        try:
            if self._async_handler:
                await self.handler(*args)
            else:
                outcome = await asyncio.to_thread(self.handler, *args)
                if isinstance(outcome, Awaitable):
                    await outcome
        except (JobCancelled, JobLost):
            return Result(DROP, ctx)
        except asyncio.CancelledError:
            raise
        except BaseException:  # noqa: BLE001 - a handler's failure is data for q.fail
            return Result(FAIL, ctx, traceback.format_exc())
        return Result(COMPLETE, ctx) if not ctx.should_stop else Result(DROP, ctx)

    # -- the listener ------------------------------------------------------------------------

    async def _listener_loop(self) -> None:
        s, ledger = self.settings, self._ledger
        assert self._halt is not None and self._wake is not None
        backoff = Backoff()
        while not self._halt.is_set():
            try:
                async with await psycopg.AsyncConnection.connect(
                    s.database_url, **s.connection_kwargs("listener")
                ) as conn:
                    key = await aio.session_key(conn)
                    cur = await conn.execute("select clock_timestamp()")
                    ledger.clock_skew = (await cur.fetchone())[0] - datetime.now(timezone.utc)
                    if s.listen:
                        await conn.execute(sql.LISTEN)
                    previous, ledger.owner = ledger.owner, key
                    if previous and previous != key:
                        self._rekeyed_from = previous
                    self._owner_ready = True
                    ev.emit(self.log, logging.INFO, ev.LISTENER_CONNECTED, session_key=key, listen=s.listen)
                    if backoff.reset():
                        ev.emit(self.log, logging.INFO, ev.DB_RECONNECTED, component="listener")
                    self._plan.hint()  # notifications may have been missed while away: every task claims
                    assert self._waker is not None
                    self._waker.wake_all()
                    await self._listen(conn)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001
                self._owner_ready = False
                self._db_trouble(exc, backoff, "listener")
                await self._sleep(backoff.next())

    async def _listen(self, conn: psycopg.AsyncConnection[Any]) -> None:
        assert self._halt is not None and self._wake is not None
        pinged = time.monotonic()
        while not self._halt.is_set():
            if self.settings.listen:
                async for note in conn.notifies(timeout=LISTEN_SLICE):
                    if self._plan.hint(note.payload) and self._waker is not None:
                        self._waker.wake_one()  # one notification, one claim; a full claim wakes another task
            else:
                await self._sleep(LISTEN_SLICE)
            if time.monotonic() - pinged >= PING_EVERY:
                await conn.execute("select 1")
                pinged = time.monotonic()

    # -- maintenance ------------------------------------------------------------------------

    async def _maintenance_loop(self) -> None:
        s, ledger, pool = self.settings, self._ledger, self.pool
        assert pool is not None and self._halt is not None
        backoff = Backoff()
        conn: psycopg.AsyncConnection[Any] | None = None
        next_reap = time.monotonic() + random.uniform(0, s.reap_interval)
        try:
            while not self._halt.is_set():
                await self._sleep(MAINTENANCE_TICK)
                if self._halt.is_set():
                    break
                try:
                    if conn is None:
                        conn = await pool.getconn(timeout=2.0)
                        if s.pgbouncer:  # no listener to measure the clock against the database's
                            cur = await conn.execute("select clock_timestamp()")
                            ledger.clock_skew = (await cur.fetchone())[0] - datetime.now(timezone.utc)
                    rekeyed = self._rekeyed_from
                    if rekeyed is not None:
                        await aio.reap(conn)
                        next_reap = time.monotonic() + s.reap_interval
                        self._rekeyed_from = None
                    due = ledger.due_heartbeats(all_of_owner=rekeyed)
                    if due:
                        outcomes = await aio.heartbeat_many(conn, [c.job for c in due], lease=s.lease)
                        ledger.heartbeat_answer(due, outcomes)
                    if time.monotonic() >= next_reap:
                        reaped = await aio.reap(conn)
                        next_reap = time.monotonic() + s.reap_interval * random.uniform(0.9, 1.1)
                        if reaped:
                            ev.emit(self.log, logging.INFO, ev.JOBS_REAPED, count=reaped)
                    backoff.reset()
                except Exception as exc:  # noqa: BLE001
                    if conn is not None:
                        await pool.putconn(conn)
                        conn = None
                    if not is_transient(exc):
                        self._db_trouble(exc, backoff, "maintenance")
                    await self._sleep(backoff.next())
        finally:
            if conn is not None:
                await pool.putconn(conn)
