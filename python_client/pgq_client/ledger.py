"""The worker's books: jobs it holds, outcomes to send, and what the next round trip carries.

Pure bookkeeping with no I/O, shared by the threaded and the asyncio worker.
Handlers report outcomes with :meth:`Ledger.report` (any thread); the claim
loop calls :meth:`take_round` to build one round trip (completes, fails,
releases and the next claim together), sends it, then :meth:`settle` with
what the database answered, or :meth:`carry` to resend it after an error.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from . import events as ev
from .claim_plan import ClaimPlan
from .job_context import CANCELLED, LOST, RUNNING, JobContext
from .jobs import Job, Outcome
from .worker_settings import WorkerSettings

COMPLETE = "complete"
FAIL = "fail"  # retryable: the SQL backoff and max_attempts apply
DEAD = "dead"  # not retryable (e.g. invalid payload): dead at once
DROP = "drop"  # cancelled or lost: nothing to record


@dataclass(slots=True)
class Result:
    """A handler's outcome for one job."""

    kind: str
    ctx: JobContext
    error: str = ""


@dataclass
class Round:
    """One round trip: outcomes to record, claims to give back, and maybe a claim."""

    results: list[Result] = field(default_factory=list)
    releases: list[JobContext] = field(default_factory=list)
    claim: tuple[str, int, int] | None = None  # queue, n, hint counter

    def of(self, kind: str) -> list[Result]:
        return [r for r in self.results if r.kind == kind]

    @property
    def empty(self) -> bool:
        return not self.results and not self.releases and self.claim is None


@dataclass
class Answer:
    """What the database said to a round."""

    completed: set[int] = field(default_factory=set)
    failed: dict[int, str] = field(default_factory=dict)  # id -> retry/dead/lost
    released: set[int] = field(default_factory=set)
    claimed: list[Job] = field(default_factory=list)


class Ledger:
    def __init__(self, settings: WorkerSettings, plan: ClaimPlan, logger: logging.Logger) -> None:
        self.settings = settings
        self.plan = plan
        self.log = logger
        self.held: dict[int, JobContext] = {}
        self.lock = threading.Lock()
        self._outcomes: deque[Result] = deque()
        self._carried: list[Result] = []
        self._to_release: list[JobContext] = []
        self._claimed = 0
        self._finished = 0
        self.clock_skew = timedelta(0)  # database clock minus ours, measured by the worker
        self.owner = 0  # the liveness key claims are made with (0: lease only)
        self.completed_count = 0
        self.job_seconds = 0.0  # moving average of a handler's run time
        self.round_seconds = 0.001  # moving average of a claim-loop round trip

    # -- handler side (any thread) ------------------------------------------------

    def report(self, result: Result, seconds: float) -> None:
        result.ctx.finished = True
        self.timed(job_seconds=seconds)
        self._outcomes.append(result)

    # -- claim loop side ---------------------------------------------------------------

    @property
    def in_hand(self) -> int:
        """Claimed jobs whose handler has not finished yet (running or waiting for a free handler)."""
        return self._claimed - self._finished - len(self._outcomes)

    @property
    def capacity(self) -> int:
        """Most jobs to hold: the concurrency plus a prefetch that keeps the handlers busy during a round trip.

        With batch_size given, the prefetch is fixed (batch_size - concurrency).
        Otherwise it follows Little's law: handlers finish concurrency/duration
        jobs a second, so a round trip's worth is concurrency * rtt / duration,
        capped at 4x the concurrency. Short jobs get large claims (few round
        trips per job); long jobs are not hoarded from other workers.
        """
        s = self.settings
        if not s.auto_batch:
            return s.concurrency + s.max_prefetch
        if self.job_seconds <= 0:
            return s.concurrency
        want = math.ceil(s.concurrency * self.round_seconds / self.job_seconds)
        return s.concurrency + min(s.max_prefetch, want)

    @property
    def free(self) -> int:
        return self.capacity - self.in_hand

    def timed(self, job_seconds: float | None = None, round_seconds: float | None = None) -> None:
        """Feed the moving averages of handler run time and round-trip time."""
        if job_seconds is not None:
            self.job_seconds = job_seconds if self.job_seconds <= 0 else 0.9 * self.job_seconds + 0.1 * job_seconds
        if round_seconds is not None:
            self.round_seconds = 0.8 * self.round_seconds + 0.2 * round_seconds

    def pending(self) -> bool:
        """Is there anything to send (outcomes, releases)?"""
        return bool(self._outcomes or self._carried or self._to_release)

    def take_round(self, *, claim: bool) -> Round:
        rnd = Round(results=self._carried, releases=self._to_release)
        self._carried, self._to_release = [], []
        while self._outcomes:
            rnd.results.append(self._outcomes.popleft())
            self._finished += 1
        if claim and self.free > 0:
            picked = self.plan.pick()
            if picked is not None:
                rnd.claim = (picked[0], min(self.settings.batch_size or 1000, self.free), picked[1])
        return rnd

    def carry(self, rnd: Round) -> None:
        """The round failed (database away): send its outcomes and releases again next time."""
        self._carried = rnd.results + self._carried
        self._to_release = rnd.releases + self._to_release

    def release(self, contexts: list[JobContext], status: str) -> None:
        """Give jobs back (shutdown): they stop counting as in hand and go out with the next round."""
        for ctx in contexts:
            ctx.stop(status)
        self._to_release.extend(contexts)
        self._finished += len(contexts)

    def mark_stopping(self) -> None:
        """Tell every held job that the worker is shutting down (JobContext.worker_stopping)."""
        with self.lock:
            for ctx in self.held.values():
                ctx.worker_stopping = True

    def unfinished(self) -> list[JobContext]:
        with self.lock:
            return [c for c in self.held.values() if not c.finished]

    def settle(self, rnd: Round, answer: Answer) -> list[JobContext]:
        """Apply the database's answer; returns the newly claimed jobs, ready to run."""
        log = self.log
        with self.lock:
            for r in rnd.results:
                self.held.pop(r.ctx.id, None)
            for ctx in rnd.releases:
                self.held.pop(ctx.id, None)
        for r in rnd.results:
            ctx = r.ctx
            if r.kind == COMPLETE:
                if ctx.id in answer.completed:
                    self.completed_count += 1
                    ev.emit(log, logging.DEBUG, ev.JOB_COMPLETED, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt)
                elif ctx.status == RUNNING:
                    ev.emit(log, logging.WARNING, ev.JOB_LOST, job_id=ctx.id, queue=ctx.queue,
                            reason="completed after the claim was taken back; result refused")
            elif r.kind in (FAIL, DEAD):
                status = answer.failed.get(ctx.id, LOST)
                if status == "retry":
                    ev.emit(log, logging.WARNING, ev.JOB_FAILED, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt,
                            error=_summary(r.error))
                elif status == "dead":
                    ev.emit(log, logging.ERROR, ev.JOB_DEAD, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt,
                            error=_summary(r.error))
                elif ctx.status == RUNNING:
                    ev.emit(log, logging.WARNING, ev.JOB_LOST, job_id=ctx.id, queue=ctx.queue,
                            reason="failed after the claim was taken back")
            elif r.kind == DROP and ctx.status == CANCELLED:
                ev.emit(log, logging.INFO, ev.JOB_CANCELLED, job_id=ctx.id, queue=ctx.queue)
        for ctx in rnd.releases:
            if ctx.id in answer.released:
                ev.emit(log, logging.INFO, ev.JOB_RELEASED, job_id=ctx.id, queue=ctx.queue)
        fresh: list[JobContext] = []
        if rnd.claim is not None:
            queue, n, hints = rnd.claim
            self.plan.claimed(queue, n, len(answer.claimed), hints)
            if answer.claimed:
                lease = self._lease_seconds(answer.claimed[0])
                fresh = [JobContext(job, lease, self.owner) for job in answer.claimed]
                with self.lock:
                    for ctx in fresh:
                        self.held[ctx.id] = ctx
                self._claimed += len(fresh)
                if log.isEnabledFor(logging.DEBUG):
                    for ctx in fresh:
                        ev.emit(log, logging.DEBUG, ev.JOB_CLAIMED, job_id=ctx.id, queue=ctx.queue,
                                attempt=ctx.attempt)
        return fresh

    def _lease_seconds(self, job: Job) -> float:
        if self.settings.lease is not None:
            return self.settings.lease.total_seconds()
        left = job.lease_until - (datetime.now(timezone.utc) + self.clock_skew)
        return max(1.0, left.total_seconds())

    # -- heartbeat side ---------------------------------------------------------------

    def due_heartbeats(self, *, all_of_owner: int | None = None) -> list[JobContext]:
        """Held jobs whose next heartbeat is due (or every job claimed under all_of_owner)."""
        now = time.monotonic()
        with self.lock:
            held = list(self.held.values())
        return [c for c in held if c.status == RUNNING and (c.next_beat <= now or c.owner == all_of_owner)]

    def heartbeat_answer(self, contexts: list[JobContext], outcomes: list[Outcome]) -> None:
        by_id = {c.id: c for c in contexts}
        now = time.monotonic()
        for out in outcomes:
            ctx = by_id.get(out.id)
            if ctx is None:
                continue
            if out.status == RUNNING:
                ctx.next_beat = now + ctx.lease_seconds / 3
            elif ctx.status == RUNNING:
                ctx.stop(CANCELLED if out.status == CANCELLED else LOST)
                event = ev.JOB_CANCELLED if out.status == CANCELLED else ev.JOB_LOST
                ev.emit(self.log, logging.WARNING, event, job_id=ctx.id, queue=ctx.queue,
                        reason=f"heartbeat said {out.status}")


def _summary(text: str) -> str:
    """The last line of a traceback: the exception and its message."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""
