"""The worker's books: jobs it holds, outcomes to send, and what each round trip carries.

Pure bookkeeping with no I/O, shared by the threaded and the asyncio worker,
and safe to use from several threads: handlers report outcomes with
:meth:`Ledger.report`; each claim loop calls :meth:`take_round` to build one
round trip (every outcome not yet taken, releases, and a claim for a share of
one lane's free slots), sends it, then :meth:`settle` with what the database
answered, or :meth:`carry` to hand its outcomes back after an error. An
outcome is taken by exactly one round; slots asked for by claims still on
their way are reserved, so the loops together never hold more than a lane's
:meth:`capacity` jobs of it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import Enum

from .._error_text import message
from ..context import CANCELLED, LOST, RUNNING
from ..records import BeatStatus, FailStatus, Job, Outcome
from . import events as ev
from ._claimed import ClaimedJob
from ._hints import ClaimHints
from ._lanes import Lane
from ._observer import NOTHING, Observer, OutcomeName

# The soonest a claim cut short by a rate limit is tried again (seconds).
RATE_RETRY_FLOOR = 0.005
# How soon a claim that found every slot of a queue taken looks once more (seconds).
CONCURRENCY_RECHECK = 0.05
# Wake-ups on demand: after the claim that started the worker's wait for a queue, it looks once more at
# once and once more this much later (seconds): a job whose enqueue ran before the wait began but
# committed after that first look (a slow commit, a transaction held open after its enqueue) starts
# then, not at the next poll. Later commits than this are left for the poll.
WAIT_RECHECK = 0.05


class ResultKind(str, Enum):
    COMPLETE = "complete"
    FAIL = "fail"  # retryable: the SQL backoff and max_attempts apply
    DEAD = "dead"  # not retryable (e.g. invalid payload): dead at once
    DROP = "drop"  # cancelled or lost: nothing to record


@dataclass(slots=True)
class Result:
    """A handler's outcome for one job."""

    kind: ResultKind
    ctx: ClaimedJob
    error: str = ""  # the text q.fail records (a traceback)
    summary: str = ""  # "ExceptionType: first line of its message", for the logs
    seconds: float = 0.0  # the handler's run time
    value: str | None = None  # COMPLETE: the handler's return value as JSON text (the job's result), or None


@dataclass(frozen=True, slots=True)
class Claim:
    queue: str
    n: int
    hints: int  # ClaimHints' hint counter for the queue when the claim was taken
    lane: int
    lease: timedelta | None


@dataclass
class Round:
    """One round trip: outcomes to record, claims to give back, and maybe a claim."""

    results: list[Result] = field(default_factory=list)
    releases: list[ClaimedJob] = field(default_factory=list)
    claim: Claim | None = None
    owner: int = 0  # the liveness key the claim is made with
    # The worker LISTENs: an empty claim says it waits; a claim cut short by a limit asks for a NOTIFY.
    listening: bool = False

    def of(self, kind: ResultKind) -> list[Result]:
        return [r for r in self.results if r.kind == kind]

    @property
    def empty(self) -> bool:
        return not self.results and not self.releases and self.claim is None


@dataclass
class Answer:
    """What the database said to a round."""

    completed: set[int] = field(default_factory=set)
    failed: dict[int, FailStatus] = field(default_factory=dict)
    released: set[int] = field(default_factory=set)
    claimed: list[Job] = field(default_factory=list)
    # Flow control: the limit that cut the claim short ('concurrency', 'rate') and, for a rate,
    # seconds until the next start is allowed.
    blocked: str = ""
    retry_in: float | None = None
    # Wake-ups on demand: this (empty, listening) claim started the worker's wait for the queue, so
    # enqueues notify from now on; one more claim covers a job that committed as the wait began.
    waiting: bool = False


@dataclass
class _LaneBooks:
    lane: Lane
    claimed: int = 0  # jobs ever handed to this lane
    finished: int = 0  # of those, reported and taken by a round, or given back
    reserved: int = 0  # asked for by claims still on their way
    capacity: int = 0
    round_size: int = 1
    job_seconds: float = 0.0  # moving average of a handler's run time
    # Handlers append here without a lock (deque.append is atomic): a lock per job made the
    # handler threads and the claim loops take turns on 2 cores (drain ~25% slower).
    outcomes: deque[Result] = field(default_factory=deque)

    @property
    def held(self) -> int:
        """Claimed jobs whose handler has not finished yet (running or waiting for a free handler)."""
        return self.claimed - self.finished - len(self.outcomes)

    @property
    def free(self) -> int:
        return self.capacity - self.held - self.reserved


class Ledger:
    def __init__(self, lanes: Sequence[Lane], loops: int, hints: ClaimHints, logger: logging.Logger) -> None:
        self.lanes = tuple(lanes)
        self.loops = loops
        self.hints = hints
        self.log = logger
        self.held: dict[int, ClaimedJob] = {}
        self.listening = False  # set by the worker: it LISTENs for NOTIFY pgq
        self.lock = threading.Lock()  # guards everything below
        self._books = [_LaneBooks(lane) for lane in self.lanes]
        self._lane_of = {q: lane.index for lane in self.lanes for q in lane.queues}
        self._carried: list[Result] = []
        self._to_release: list[ClaimedJob] = []
        self.in_flight = 0  # rounds sent and not yet settled or carried
        self.peak_in_flight = 0  # most rounds ever in flight at once
        self.rounds = 0  # rounds sent (or tried)
        self.clock_skew = timedelta(0)  # database clock minus ours, measured by the worker
        self.owner = 0  # the liveness key claims are made with (0: lease only)
        self.completed_count = 0
        self.round_seconds = 0.001  # moving average of a claim-loop round trip
        self.observer: Observer = NOTHING  # metrics (off: does nothing, and settle tallies nothing)
        self.retune()

    # -- handler side (any thread) ------------------------------------------------

    def report(self, result: Result) -> bool:
        """A handler finished a job; True if an idle loop should be woken to send a round for it."""
        ctx = result.ctx
        books = self._books[ctx.lane]
        ctx.finished = True
        s = result.seconds
        books.job_seconds = s if books.job_seconds <= 0 else 0.9 * books.job_seconds + 0.1 * s
        books.outcomes.append(result)
        if self.in_flight <= 0:
            return True
        size = books.round_size
        return self._outcome_count() >= size or books.free >= size

    def _outcome_count(self) -> int:
        return sum(len(b.outcomes) for b in self._books)

    # -- claim loop side ---------------------------------------------------------------

    @property
    def in_hand(self) -> int:
        """Claimed jobs whose handler has not finished yet (running or waiting for a free handler)."""
        return sum(b.held for b in self._books)

    def capacity(self, lane: int = 0) -> int:
        """Most jobs of a lane to hold: its concurrency plus a prefetch that keeps its handlers busy.

        With batch_size given, the prefetch is fixed (batch_size - concurrency).
        Otherwise it follows Little's law: handlers finish concurrency/duration
        jobs a second, so a round trip's worth is concurrency * rtt / duration,
        and each claim loop gets that much (so several rounds can be on their
        way while the handlers stay busy), capped so that one claim is at
        most 20x the concurrency (and 1000). Short jobs get large claims (few
        round trips per job); long jobs are not hoarded from other workers.
        Recomputed once per round (:meth:`retune`), not per job.
        """
        return self._books[lane].capacity

    def round_size(self, lane: int = 0) -> int:
        """The claim a round aims for: batch_size, or automatic, an even share of the capacity among the loops."""
        return self._books[lane].round_size

    def free(self, lane: int = 0) -> int:
        """A lane's slots neither held nor asked for by a claim on its way."""
        return self._books[lane].free

    def any_free(self) -> bool:
        return any(b.free > 0 for b in self._books)

    def retune(self) -> None:
        """Recompute each lane's capacity and round size from the moving averages."""
        for b in self._books:
            lane = b.lane
            if not lane.auto_batch:
                capacity = lane.concurrency + lane.max_prefetch(self.loops)
            elif b.job_seconds <= 0:
                capacity = lane.concurrency
            else:
                want = math.ceil(self.loops * lane.concurrency * self.round_seconds / b.job_seconds)
                capacity = lane.concurrency + min(lane.max_prefetch(self.loops), want)
            b.capacity = capacity
            if lane.batch_size is not None:
                b.round_size = lane.batch_size
            else:
                b.round_size = min(lane.auto_claim_limit, -(-capacity // self.loops))

    def worth_a_round(self, claim: bool) -> bool:
        """Should an idle loop send a round now?

        Always when no round is on its way (nobody else will carry the
        outcomes soon) or when releases or carried outcomes wait (shutdown,
        an outage). While other rounds are on their way, only for a full
        round's worth: that many free slots of a lane to claim, or that many
        outcomes; a returning loop takes whatever piled up meanwhile. Rounds
        stay large (one round trip and one commit serve many jobs), and the
        loops still overlap when there is enough work for them.
        """
        if self.in_flight <= 0 or self._to_release or self._carried:
            return claim or self.pending()
        smallest = min(b.round_size for b in self._books)
        if self._outcome_count() >= smallest:
            return True
        return claim and any(b.free >= b.round_size for b in self._books)

    def timed(self, round_seconds: float) -> None:
        """Feed the moving average of the round-trip time."""
        self.round_seconds = 0.8 * self.round_seconds + 0.2 * round_seconds

    def pending(self) -> bool:
        """Is there anything to send (outcomes, releases)?"""
        return bool(self._carried or self._to_release or any(b.outcomes for b in self._books))

    def busy(self) -> bool:
        """Anything to send, or a round on its way whose answer is still to be settled?"""
        return self.in_flight > 0 or self.pending()

    def take_round(self, *, claim: bool) -> Round:
        """Everything there is to send, and (claim=True) a claim for free slots; counts as in flight until settled."""
        with self.lock:
            self.retune()
            rnd = Round(results=self._carried, releases=self._to_release, owner=self.owner, listening=self.listening)
            self._carried, self._to_release = [], []
            for b in self._books:
                while b.outcomes:
                    r = b.outcomes.popleft()
                    rnd.results.append(r)
                    if not r.ctx.given_back:  # a job given back was counted as finished then
                        b.finished += 1
            if claim:
                open_queues = {q for b in self._books if b.free > 0 for q in b.lane.queues}
                picked = self.hints.pick(open_queues) if open_queues else None
                if picked is not None:
                    queue, hints = picked
                    b = self._books[self._lane_of[queue]]
                    n = min(b.round_size, b.free)
                    rnd.claim = Claim(queue, n, hints, b.lane.index, b.lane.lease)
                    b.reserved += n
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
                self._books[rnd.claim.lane].reserved -= rnd.claim.n
            self.in_flight -= 1

    def release(self, contexts: list[ClaimedJob], status: str) -> None:
        """Give jobs back (shutdown): they stop counting as in hand and go out with the next round."""
        for ctx in contexts:
            ctx.stop(status)  # type: ignore[arg-type]
        with self.lock:
            self._to_release.extend(contexts)
            for ctx in contexts:
                if not ctx.finished and not ctx.given_back:
                    ctx.given_back = True
                    self._books[ctx.lane].finished += 1

    def mark_stopping(self) -> None:
        """Tell every held job that the worker is shutting down (JobContext.worker_stopping)."""
        with self.lock:
            for ctx in self.held.values():
                ctx.worker_stopping = True

    def unfinished(self) -> list[ClaimedJob]:
        with self.lock:
            return [c for c in self.held.values() if not c.finished]

    def settle(self, rnd: Round, answer: Answer, connection: object = None) -> list[ClaimedJob]:
        """Apply the database's answer; returns the newly claimed jobs, ready to run.

        Jobs claimed under a liveness key the worker no longer holds (the
        listener reconnected while the claim was on its way) may be reaped by
        anyone at any moment: they are not returned but given back at once.
        """
        log = self.log
        fresh: list[ClaimedJob] = []
        claim = rnd.claim
        if claim is not None and answer.claimed:
            lease = self._lease_seconds(answer.claimed[0], claim.lease)
            fresh = [ClaimedJob(job, lease, rnd.owner, claim.lane, connection) for job in answer.claimed]  # type: ignore[arg-type]
        with self.lock:
            for r in rnd.results:
                self.held.pop(r.ctx.id, None)
            for ctx in rnd.releases:
                self.held.pop(ctx.id, None)
            if claim is not None:
                b = self._books[claim.lane]
                b.reserved -= claim.n
                b.claimed += len(fresh)
                for ctx in fresh:
                    self.held[ctx.id] = ctx
            self.in_flight -= 1
            stale = bool(fresh) and rnd.owner != self.owner
        done = 0
        debug = log.isEnabledFor(logging.DEBUG)
        # Metrics on: what each job came to, handed to the observer in one call for the round.
        tally: list[tuple[str, OutcomeName, float]] | None = [] if self.observer.enabled else None
        for r in rnd.results:
            ctx = r.ctx
            outcome: OutcomeName | None = None
            if r.kind is ResultKind.COMPLETE:
                if ctx.id in answer.completed:
                    done += 1
                    outcome = "completed"
                    if debug:
                        ev.emit(log, logging.DEBUG, ev.JOB_COMPLETED, job_id=ctx.id, queue=ctx.queue,
                                attempt=ctx.attempt, duration_ms=_ms(r.seconds))
                elif ctx.stop(LOST):
                    outcome = "lost"
                    ev.emit(log, logging.WARNING, ev.JOB_LOST, job_id=ctx.id, queue=ctx.queue,
                            reason="completed after the claim was taken back; result refused")
            elif r.kind in (ResultKind.FAIL, ResultKind.DEAD):
                status = answer.failed.get(ctx.id, FailStatus.LOST)
                if status is FailStatus.RETRY:
                    outcome = "retry"
                    ev.emit(log, logging.WARNING, ev.JOB_FAILED, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt,
                            duration_ms=_ms(r.seconds), error=r.summary)
                elif status is FailStatus.DEAD:
                    outcome = "dead"
                    ev.emit(log, logging.ERROR, ev.JOB_DEAD, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt,
                            duration_ms=_ms(r.seconds), error=r.summary)
                elif ctx.stop(LOST):
                    outcome = "lost"
                    ev.emit(log, logging.WARNING, ev.JOB_LOST, job_id=ctx.id, queue=ctx.queue,
                            reason="failed after the claim was taken back")
            elif r.kind is ResultKind.DROP and ctx.status == CANCELLED:
                ev.emit(log, logging.INFO, ev.JOB_CANCELLED, job_id=ctx.id, queue=ctx.queue)
            if tally is not None and outcome is not None:
                tally.append((ctx.queue, outcome, r.seconds))
        if tally:
            self.observer.outcomes(tally)
        if done:
            with self.lock:
                self.completed_count += done
        for ctx in rnd.releases:
            if ctx.id in answer.released:
                ev.emit(log, logging.INFO, ev.JOB_RELEASED, job_id=ctx.id, queue=ctx.queue)
        if claim is not None:
            now = time.monotonic()
            self.hints.claimed(claim.queue, claim.n, len(answer.claimed), claim.hints, now,
                               limited=bool(answer.blocked))
            if answer.waiting:
                # Register first, commit, then claim once more before sleeping (and once more shortly
                # after): the race argument is in sql/triggers/notify_enqueued.sql.
                self.hints.hint(claim.queue)
                self.hints.defer(claim.queue, now + WAIT_RECHECK)
            if answer.retry_in is not None:
                # A rate limit: look again when its next slot frees, not at the next poll tick.
                # At least RATE_RETRY_FLOOR later: a slot that is free but locked by another
                # claimer says "0 s", and claiming back-to-back for it would be a busy wait.
                self.hints.defer(claim.queue, now + max(answer.retry_in, RATE_RETRY_FLOOR))
            elif answer.blocked == "concurrency" and not answer.claimed:
                # Every slot taken: the next freed one NOTIFYs (q.flow_want). One look shortly after
                # covers a slot freed while this claim asked, whose NOTIFY it could not ask for.
                self.hints.recheck(claim.queue, now + CONCURRENCY_RECHECK)
            if debug:
                for ctx in fresh:
                    ev.emit(log, logging.DEBUG, ev.JOB_CLAIMED, job_id=ctx.id, queue=ctx.queue, attempt=ctx.attempt)
        if stale:
            self.release(fresh, LOST)
            return []
        return fresh

    def _lease_seconds(self, job: Job, lease: timedelta | None) -> float:
        if lease is not None:
            return lease.total_seconds()
        left = job.lease_until - (datetime.now(timezone.utc) + self.clock_skew)
        return max(1.0, left.total_seconds())

    # -- heartbeat side ---------------------------------------------------------------

    def due_heartbeats(self, *, all_of_owner: int | None = None, now: float | None = None) -> list[ClaimedJob]:
        """Held jobs whose next heartbeat is due (or every job claimed under all_of_owner)."""
        now = time.monotonic() if now is None else now
        with self.lock:
            held = list(self.held.values())
        return [c for c in held if c.status == RUNNING and (c.next_beat <= now or c.owner == all_of_owner)]

    def heartbeat_answer(self, contexts: list[ClaimedJob], outcomes: list[Outcome], *,
                         now: float | None = None) -> None:
        """Apply what ``q.heartbeat_many`` said: extend, or tell a running handler to stop.

        A "lost" for a job whose handler has already finished is left to the
        round that carries its outcome: the heartbeat was taken before the
        finish, so "lost" may only mean that the round completed (or failed)
        the job first. If the claim really was taken back, that round's answer
        refuses the result and reports the loss (once). "cancelled" says only
        what it says (q.heartbeat gives it to the cancelled claim's token alone).
        """
        by_id = {c.id: c for c in contexts}
        now = time.monotonic() if now is None else now
        for out in outcomes:
            ctx = by_id.get(out.id)
            if ctx is None:
                continue
            if out.status == BeatStatus.RUNNING:
                ctx.next_beat = now + ctx.lease_seconds / 3
            elif ctx.finished and out.status == BeatStatus.LOST:
                continue
            elif ctx.stop(CANCELLED if out.status == BeatStatus.CANCELLED else LOST):
                event = ev.JOB_CANCELLED if out.status == BeatStatus.CANCELLED else ev.JOB_LOST
                if event == ev.JOB_LOST:
                    self.observer.lost(ctx.queue)
                ev.emit(self.log, logging.WARNING, event, job_id=ctx.id, queue=ctx.queue,
                        reason=f"heartbeat said {out.status}")

    def rekey(self, owner: int) -> tuple[int, list[ClaimedJob]]:
        """Claim under a new liveness key from now on; returns the old key and the held jobs under another.

        One step under the lock: a claim that was on its way under the old key
        and settles after this is given back at once (:meth:`settle`: stale),
        and every job settled before is in the list, for the worker to adopt.
        """
        with self.lock:
            previous, self.owner = self.owner, owner
            held = [c for c in self.held.values() if c.owner != owner and not c.given_back]
        return previous, held

    def held_jobs(self) -> list[tuple[str, bool]]:
        """(queue, handler started) of each job claimed and not finished: what the metrics' gauges show."""
        with self.lock:
            held = list(self.held.values())
        return [(c.queue, c.started > 0) for c in held if not c.finished and not c.given_back]

    def lane_lease(self, ctx: ClaimedJob) -> timedelta | None:
        return self.lanes[ctx.lane].lease


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def summary(exc: BaseException) -> str:
    """``ExceptionType: first line of its message`` (not a traceback's last line: pydantic's ends in a URL).

    Never raises: an exception whose ``__str__`` raises is just its type's name.
    """
    text = message(exc).strip()
    first = text.splitlines()[0].strip() if text else ""
    return f"{type(exc).__name__}: {first}"[:300] if first else type(exc).__name__
