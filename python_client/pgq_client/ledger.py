"""The worker's books: jobs it holds, outcomes to send, and what each round trip carries.

Pure bookkeeping with no I/O, shared by the threaded and the asyncio worker,
and safe to use from several threads: handlers report outcomes with
:meth:`Ledger.report`; each claim loop calls :meth:`take_round` to build one
round trip (every outcome not yet taken, releases, and a claim for a share of
the free slots), sends it, then :meth:`settle` with what the database
answered, or :meth:`carry` to hand its outcomes back after an error. An
outcome is taken by exactly one round; slots asked for by claims still on
their way are reserved, so the loops together never hold more than
:attr:`capacity` jobs.
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
    owner: int = 0  # the liveness key the claim is made with

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
        self.lock = threading.Lock()  # guards everything below but the outcome deque and the averages
        self._outcomes: deque[Result] = deque()  # handlers append, rounds pop (under the lock)
        self._carried: list[Result] = []
        self._to_release: list[JobContext] = []
        self._claimed = 0
        self._finished = 0
        self._reserved = 0  # jobs asked for by claims still on their way
        self.in_flight = 0  # rounds sent and not yet settled or carried
        self.peak_in_flight = 0  # most rounds ever in flight at once
        self.rounds = 0  # rounds sent (or tried)
        self.clock_skew = timedelta(0)  # database clock minus ours, measured by the worker
        self.owner = 0  # the liveness key claims are made with (0: lease only)
        self.completed_count = 0
        self.job_seconds = 0.0  # moving average of a handler's run time
        self.round_seconds = 0.001  # moving average of a claim-loop round trip
        self._capacity = settings.concurrency
        self._round_size = 1
        self.retune()

    # -- handler side (any thread) ------------------------------------------------

    def report(self, result: Result, seconds: float) -> None:
        result.ctx.finished = True
        self.job_seconds = seconds if self.job_seconds <= 0 else 0.9 * self.job_seconds + 0.1 * seconds
        self._outcomes.append(result)

    def report_and_ask(self, result: Result, seconds: float, *, claim: bool) -> bool:
        """:meth:`report`, then :meth:`worth_a_round` (the handler wakes an idle loop only when it is)."""
        self.report(result, seconds)
        if self.in_flight <= 0:
            return True
        size = self._round_size
        return len(self._outcomes) >= size or (claim and self.free >= size)

    # -- claim loop side ---------------------------------------------------------------

    @property
    def in_hand(self) -> int:
        """Claimed jobs whose handler has not finished yet (running or waiting for a free handler)."""
        return self._claimed - self._finished - len(self._outcomes)

    @property
    def capacity(self) -> int:
        """Most jobs to hold: the concurrency plus a prefetch that keeps the handlers busy while rounds travel.

        With batch_size given, the prefetch is fixed (batch_size - concurrency).
        Otherwise it follows Little's law: handlers finish concurrency/duration
        jobs a second, so a round trip's worth is concurrency * rtt / duration,
        and each claim loop gets that much (so several rounds can be on their
        way while the handlers stay busy), capped so that one claim is at
        most 20x the concurrency (and 1000). Short jobs get large claims (few
        round trips per job); long jobs are not hoarded from other workers.
        Recomputed once per round (:meth:`retune`), not per job.
        """
        return self._capacity

    def retune(self) -> None:
        """Recompute the capacity and the round size from the moving averages."""
        s = self.settings
        if not s.auto_batch:
            capacity = s.concurrency + s.max_prefetch
        elif self.job_seconds <= 0:
            capacity = s.concurrency
        else:
            want = math.ceil(s.loops * s.concurrency * self.round_seconds / self.job_seconds)
            capacity = s.concurrency + min(s.max_prefetch, want)
        self._capacity = capacity
        if s.batch_size is not None:
            self._round_size = s.batch_size
        else:
            self._round_size = min(s.auto_claim_limit, -(-capacity // s.loops))

    @property
    def free(self) -> int:
        """Slots neither held nor asked for by a claim on its way."""
        return self._capacity - self.in_hand - self._reserved

    @property
    def round_size(self) -> int:
        """The claim a round aims for: batch_size, or automatic, an even share of the capacity among the loops."""
        return self._round_size

    def claim_size(self, free: int) -> int:
        """Jobs one round claims: the round size, at most the free slots."""
        return min(self._round_size, free)

    def worth_a_round(self, claim: bool) -> bool:
        """Should an idle loop send a round now?

        Always when no round is on its way (nobody else will carry the
        outcomes soon) or when releases or carried outcomes wait (shutdown,
        an outage). While other rounds are on their way, only for a full
        round's worth: that many free slots to claim, or that many outcomes;
        a returning loop takes whatever piled up meanwhile. Rounds stay
        large (one round trip and one commit serve many jobs), and the loops
        still overlap when there is enough work for them.
        """
        if self.in_flight <= 0 or self._to_release or self._carried:
            return claim or self.pending()
        size = self._round_size
        return (claim and self.free >= size) or len(self._outcomes) >= size

    def timed(self, round_seconds: float) -> None:
        """Feed the moving average of the round-trip time."""
        self.round_seconds = 0.8 * self.round_seconds + 0.2 * round_seconds

    def pending(self) -> bool:
        """Is there anything to send (outcomes, releases)?"""
        return bool(self._outcomes or self._carried or self._to_release)

    def busy(self) -> bool:
        """Anything to send, or a round on its way whose answer is still to be settled?"""
        return self.in_flight > 0 or self.pending()

    def take_round(self, *, claim: bool) -> Round:
        """Everything there is to send, and (claim=True) a claim for free slots; counts as in flight until settled."""
        with self.lock:
            self.retune()
            rnd = Round(results=self._carried, releases=self._to_release, owner=self.owner)
            self._carried, self._to_release = [], []
            while self._outcomes:
                rnd.results.append(self._outcomes.popleft())
                self._finished += 1
            if claim:
                free = self.free
                if free > 0:
                    picked = self.plan.pick()
                    if picked is not None:
                        n = self.claim_size(free)
                        rnd.claim = (picked[0], n, picked[1])
                        self._reserved += n
            if not rnd.empty:
                self.rounds += 1
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return rnd

    def carry(self, rnd: Round) -> None:
        """The round failed (database away): send its outcomes and releases again with a later round."""
        with self.lock:
            self._carried = rnd.results + self._carried
            self._to_release = rnd.releases + self._to_release
            if rnd.claim is not None:
                self._reserved -= rnd.claim[1]
            self.in_flight -= 1

    def release(self, contexts: list[JobContext], status: str) -> None:
        """Give jobs back (shutdown): they stop counting as in hand and go out with the next round."""
        for ctx in contexts:
            ctx.stop(status)
        with self.lock:
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
        """Apply the database's answer; returns the newly claimed jobs, ready to run.

        Jobs claimed under a liveness key the worker no longer holds (the
        listener reconnected while the claim was on its way) may be reaped by
        anyone at any moment: they are not returned but given back at once.
        """
        log = self.log
        fresh: list[JobContext] = []
        if rnd.claim is not None and answer.claimed:
            lease = self._lease_seconds(answer.claimed[0])
            fresh = [JobContext(job, lease, rnd.owner) for job in answer.claimed]
        with self.lock:
            for r in rnd.results:
                self.held.pop(r.ctx.id, None)
            for ctx in rnd.releases:
                self.held.pop(ctx.id, None)
            if rnd.claim is not None:
                self._reserved -= rnd.claim[1]
                self._claimed += len(fresh)
                for ctx in fresh:
                    self.held[ctx.id] = ctx
            self.in_flight -= 1
            stale = bool(fresh) and rnd.owner != self.owner
        done = 0
        for r in rnd.results:
            ctx = r.ctx
            if r.kind == COMPLETE:
                if ctx.id in answer.completed:
                    done += 1
                    ev.emit(log, logging.DEBUG, ev.JOB_COMPLETED, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt)
                elif ctx.stop(LOST):
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
                elif ctx.stop(LOST):
                    ev.emit(log, logging.WARNING, ev.JOB_LOST, job_id=ctx.id, queue=ctx.queue,
                            reason="failed after the claim was taken back")
            elif r.kind == DROP and ctx.status == CANCELLED:
                ev.emit(log, logging.INFO, ev.JOB_CANCELLED, job_id=ctx.id, queue=ctx.queue)
        if done:
            with self.lock:
                self.completed_count += done
        for ctx in rnd.releases:
            if ctx.id in answer.released:
                ev.emit(log, logging.INFO, ev.JOB_RELEASED, job_id=ctx.id, queue=ctx.queue)
        if rnd.claim is not None:
            queue, n, hints = rnd.claim
            self.plan.claimed(queue, n, len(answer.claimed), hints)
            if log.isEnabledFor(logging.DEBUG):
                for ctx in fresh:
                    ev.emit(log, logging.DEBUG, ev.JOB_CLAIMED, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt)
        if stale:
            self.release(fresh, LOST)
            return []
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
            elif ctx.stop(CANCELLED if out.status == CANCELLED else LOST):
                event = ev.JOB_CANCELLED if out.status == CANCELLED else ev.JOB_LOST
                ev.emit(self.log, logging.WARNING, event, job_id=ctx.id, queue=ctx.queue,
                        reason=f"heartbeat said {out.status}")


def _summary(text: str) -> str:
    """The last line of a traceback: the exception and its message."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""
