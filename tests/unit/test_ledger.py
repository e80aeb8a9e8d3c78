"""The worker's books without a database: claim sizing, slot accounting per lane, outcomes taken once."""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone

import pytest
from pgq_client.context import PROGRESS_DELAY, RELEASED, JobContext
from pgq_client.records import FailStatus, Job
from pgq_client.worker._claimed import ClaimedJob
from pgq_client.worker._hints import ClaimHints
from pgq_client.worker._lanes import Lane
from pgq_client.worker._ledger import WAIT_RECHECK, Answer, Ledger, Result, ResultKind
from pgq_client.worker._observer import Observer, OutcomeName

LOG = logging.getLogger("test")


def job(i: int, queue: str = "a") -> Job:
    return Job(i, queue, {}, 1, 0, 0, uuid.uuid4(), datetime.now(timezone.utc) + timedelta(minutes=5))


def ledger(*lanes: Lane, loops: int = 1) -> Ledger:
    return Ledger(lanes, loops, ClaimHints(tuple(q for lane in lanes for q in lane.queues)), LOG)


def lane(index: int = 0, queues: tuple[str, ...] = ("a",), **kw: object) -> Lane:
    return Lane.make(index, print, queues, **{"concurrency": 4, **kw})  # type: ignore[arg-type]


def claim_and_settle(books: Ledger, ids: range, queue: str = "a") -> list[ClaimedJob]:
    rnd = books.take_round(claim=True)
    assert rnd.claim is not None and rnd.claim.queue == queue
    return books.settle(rnd, Answer(claimed=[job(i, queue) for i in ids][: rnd.claim.n]))


def test_first_claim_asks_for_the_concurrency_and_reserves_it() -> None:
    books = ledger(lane())
    rnd = books.take_round(claim=True)
    assert rnd.claim is not None and rnd.claim.n == 4
    assert books.free() == 0, "reserved while the claim is on its way"
    assert books.take_round(claim=True).claim is None, "no second claim for slots already asked for"


def test_slots_come_back_when_handlers_report_and_outcomes_go_out_once() -> None:
    books = ledger(lane())
    held = claim_and_settle(books, range(1, 5))
    assert books.in_hand == 4 and books.free() == 0
    books.report(Result(ResultKind.COMPLETE, held[0], seconds=0.01))
    assert books.in_hand == 3 and books.free() == 1
    rnd = books.take_round(claim=False)
    assert [r.ctx.id for r in rnd.results] == [1]
    assert books.take_round(claim=False).results == [], "an outcome is taken by exactly one round"
    books.settle(rnd, Answer(completed={1}))
    assert books.completed_count == 1


def test_a_failed_round_carries_its_outcomes_and_frees_its_reservation() -> None:
    books = ledger(lane(batch_size=4))  # a fixed batch: no prefetch, the capacity is the concurrency
    held = claim_and_settle(books, range(1, 5))
    books.report(Result(ResultKind.FAIL, held[1], "tb", "E: x", 0.01))
    rnd = books.take_round(claim=True)
    assert rnd.claim is not None and rnd.claim.n == 1
    books.carry(rnd)
    assert books.free() == 1 and books.in_flight == 0
    again = books.take_round(claim=False)
    assert [r.ctx.id for r in again.results] == [2]
    books.settle(again, Answer(failed={2: FailStatus.RETRY}))


def test_lanes_have_their_own_slots_and_a_full_lane_does_not_block_another() -> None:
    books = ledger(lane(0, ("slow",), concurrency=2, batch_size=2), lane(1, ("fast",), concurrency=3, batch_size=3))
    first = books.take_round(claim=True)
    second = books.take_round(claim=True)
    claims = {(r.claim.queue, r.claim.n) for r in (first, second) if r.claim is not None}
    assert claims == {("slow", 2), ("fast", 3)}
    assert books.take_round(claim=True).claim is None, "both lanes are full"
    for rnd in (first, second):
        assert rnd.claim is not None
        books.settle(rnd, Answer(claimed=[job(10 * rnd.claim.lane + i, rnd.claim.queue) for i in range(rnd.claim.n)]))
    assert (books.free(0), books.free(1)) == (0, 0)
    fast_job = next(c for c in books.held.values() if c.queue == "fast")
    books.report(Result(ResultKind.COMPLETE, fast_job, seconds=0.01))
    rnd = books.take_round(claim=True)
    assert rnd.claim is not None and (rnd.claim.queue, rnd.claim.n) == ("fast", 1), "only the fast lane's free slot"


def test_automatic_batches_grow_by_littles_law_for_short_jobs_up_to_20x() -> None:
    books = ledger(lane(concurrency=10), loops=4)
    assert books.capacity() == 10 and books.round_size() == 3
    held = claim_and_settle(books, range(1, 4))
    for _ in range(30):
        books.timed(0.01)  # round trips of 10 ms
    books.report(Result(ResultKind.COMPLETE, held[0], seconds=0.0001))  # a 0.1 ms job
    books.retune()
    assert books.capacity() == 10 + min(4 * 200 - 10, math.ceil(4 * 10 * books.round_seconds / 0.0001))
    assert books.round_size() == 200, "one claim is at most 20x the concurrency"
    books.report(Result(ResultKind.COMPLETE, held[1], seconds=50.0))  # long jobs: no prefetch, nothing hoarded
    books.retune()
    assert books.capacity() == 10 + 1


def test_a_fixed_batch_size_fixes_the_prefetch() -> None:
    books = ledger(lane(concurrency=4, batch_size=10), loops=1)
    assert books.capacity() == 10 and books.round_size() == 10


def test_released_jobs_stop_counting_once_even_if_their_handler_reports_later() -> None:
    books = ledger(lane())
    held = claim_and_settle(books, range(1, 5))
    books.release([held[0]], RELEASED)
    assert books.in_hand == 3
    books.report(Result(ResultKind.DROP, held[0], seconds=1.0))  # its handler returns after all
    books.take_round(claim=False)
    assert books.in_hand == 3, "not counted twice"


def test_claims_made_under_an_old_liveness_key_are_given_back_not_run() -> None:
    books = ledger(lane())
    books.owner = 7
    rnd = books.take_round(claim=True)
    books.owner = 8  # the listener reconnected while the claim was on its way
    fresh = books.settle(rnd, Answer(claimed=[job(1)]))
    assert fresh == [] and books.pending(), "released with the next round"


def test_a_new_liveness_key_lists_every_job_held_under_another_for_adoption() -> None:
    books = ledger(lane())
    books.owner = 7
    held = claim_and_settle(books, range(1, 4))
    books.release([held[2]], RELEASED)  # given back: not ours to adopt
    books.report(Result(ResultKind.COMPLETE, held[1], seconds=0.1))  # finished, outcome not sent yet: adopt it too
    on_its_way = books.take_round(claim=True)
    previous, to_adopt = books.rekey(8)
    assert previous == 7 and books.owner == 8
    assert sorted(c.id for c in to_adopt) == [1, 2]
    assert books.settle(on_its_way, Answer(claimed=[job(9)])) == [], "claimed under key 7 after the rekey: given back"
    for ctx in to_adopt:
        ctx.owner = 8
    assert books.rekey(8) == (8, []), "nothing to adopt once every job names the key"


def test_worth_a_round_only_for_a_full_round_while_another_is_on_its_way() -> None:
    books = ledger(lane(concurrency=4, batch_size=2), loops=2)
    assert books.worth_a_round(True)
    books.take_round(claim=True)  # 2 of 4 slots asked for; in flight
    assert books.worth_a_round(True), "two more free slots: a full round of 2"
    books.take_round(claim=True)
    assert not books.worth_a_round(True), "nothing free, nothing to send"


def test_a_handlers_progress_makes_its_next_heartbeat_due_within_the_progress_delay() -> None:
    books = ledger(lane(lease=30))
    (ctx, *_) = claim_and_settle(books, range(1, 2))
    assert ctx.next_beat - time.monotonic() > 5
    ctx.progress({"rows": 10})
    assert ctx.pending_progress == {"rows": 10} and ctx.next_beat - time.monotonic() <= PROGRESS_DELAY
    assert books.due_heartbeats(now=time.monotonic() + PROGRESS_DELAY) == [ctx]
    alone = JobContext(job(2))  # not run by a worker: the value is kept, nothing else happens
    alone.progress(1)
    assert alone.pending_progress == 1

def test_heartbeats_fall_due_every_third_of_the_lease_and_a_cancel_stops_the_job() -> None:
    from pgq_client.records import BeatStatus, Outcome

    books = ledger(lane(lease=9))
    (ctx, *_) = claim_and_settle(books, range(1, 2))
    assert ctx.lease_seconds == 9
    assert books.due_heartbeats(now=ctx.next_beat - 0.01) == []
    assert books.due_heartbeats(now=ctx.next_beat) == [ctx]
    books.heartbeat_answer([ctx], [Outcome(ctx.id, BeatStatus.RUNNING)], now=100.0)
    assert ctx.next_beat == pytest.approx(103.0)
    books.heartbeat_answer([ctx], [Outcome(ctx.id, BeatStatus.CANCELLED)], now=101.0)
    assert ctx.cancelled and books.due_heartbeats(now=1e9) == []


class Counted(Observer):
    """An observer that counts what the metrics would count."""

    enabled = True

    def __init__(self) -> None:
        self.lost_by_heartbeat = 0
        self.tallied: list[tuple[str, str, float]] = []

    def lost(self, queue: str) -> None:
        self.lost_by_heartbeat += 1

    def outcomes(self, tally: Iterable[tuple[str, OutcomeName, float]]) -> None:
        self.tallied.extend(tally)


@pytest.mark.parametrize("answered", ["after the round settled", "before the round settled"])
def test_a_heartbeat_that_says_lost_for_a_job_completed_meanwhile_reports_no_loss(
    answered: str, caplog: pytest.LogCaptureFixture,
) -> None:
    """A false job_lost (design.md#a-lost-claim-is-a-real-one), the order steered: the maintenance loop takes its due
    heartbeats while a job is held; its handler finishes and a round completes the job; the heartbeat then runs against
    the completed job, and the database says "lost". The job was not lost: no job_lost, no metric."""
    from pgq_client.records import BeatStatus, Outcome

    books = ledger(lane(lease=3))
    observer = books.observer = Counted()
    (ctx,) = claim_and_settle(books, range(1, 2))
    due = books.due_heartbeats(now=ctx.next_beat)  # 1. the heartbeat is on its way
    assert due == [ctx]
    books.report(Result(ResultKind.COMPLETE, ctx, seconds=1.0))  # 2. the handler finishes
    rnd = books.take_round(claim=False)  # 3. a round carries the completion, which commits
    if answered == "after the round settled":
        books.settle(rnd, Answer(completed={ctx.id}))
    with caplog.at_level(logging.INFO, logger="test"):
        books.heartbeat_answer(due, [Outcome(ctx.id, BeatStatus.LOST)])  # 4. the heartbeat's answer
        if answered == "before the round settled":
            books.settle(rnd, Answer(completed={ctx.id}))
    assert [r.getMessage() for r in caplog.records if "job_lost" in r.getMessage()] == []
    assert observer.lost_by_heartbeat == 0
    assert [outcome for _, outcome, _ in observer.tallied] == ["completed"]
    assert books.completed_count == 1 and not ctx.lost


def test_a_heartbeat_that_says_lost_for_a_finished_job_whose_result_is_refused_reports_one_loss(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The other side: the claim really was taken back, so the round's refusal reports it, once."""
    from pgq_client.records import BeatStatus, Outcome

    books = ledger(lane(lease=3))
    observer = books.observer = Counted()
    (ctx,) = claim_and_settle(books, range(1, 2))
    due = books.due_heartbeats(now=ctx.next_beat)
    books.report(Result(ResultKind.COMPLETE, ctx, seconds=1.0))
    rnd = books.take_round(claim=False)
    with caplog.at_level(logging.INFO, logger="test"):
        books.heartbeat_answer(due, [Outcome(ctx.id, BeatStatus.LOST)])
        books.settle(rnd, Answer(completed=set()))  # the database refused the completion
    lost = [r.getMessage() for r in caplog.records if "job_lost" in r.getMessage()]
    assert len(lost) == 1 and "result refused" in lost[0]
    assert [outcome for _, outcome, _ in observer.tallied] == ["lost"] and observer.lost_by_heartbeat == 0
    assert ctx.lost


def test_a_heartbeat_that_says_cancelled_for_a_finished_job_reports_the_cancel_not_a_loss(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """"cancelled" is given to the cancelled claim's token only: it is news even after the handler finished."""
    from pgq_client.records import BeatStatus, Outcome

    books = ledger(lane(lease=3))
    observer = books.observer = Counted()
    (ctx,) = claim_and_settle(books, range(1, 2))
    due = books.due_heartbeats(now=ctx.next_beat)
    books.report(Result(ResultKind.COMPLETE, ctx, seconds=1.0))
    rnd = books.take_round(claim=False)
    with caplog.at_level(logging.INFO, logger="test"):
        books.heartbeat_answer(due, [Outcome(ctx.id, BeatStatus.CANCELLED)])
        books.settle(rnd, Answer(completed=set()))  # the cancel won: the completion is refused
    messages = [r.getMessage() for r in caplog.records]
    assert [m for m in messages if "job_cancelled" in m] and not [m for m in messages if "job_lost" in m]
    assert ctx.cancelled and observer.tallied == [] and observer.lost_by_heartbeat == 0


def test_the_claim_that_began_a_wait_makes_the_queue_worth_a_look_now_and_once_more_shortly_after() -> None:
    # Wake-ups on demand: register, commit, then claim once more before sleeping (and at WAIT_RECHECK).
    books = Ledger((lane(),), 1, ClaimHints(("a",), until_empty=True), LOG)
    rnd = books.take_round(claim=True)
    books.settle(rnd, Answer())  # empty, and the wait already existed: sleep until a NOTIFY
    assert not books.hints.any() and books.hints.next_due() is None
    books.hints.hint("a")
    rnd = books.take_round(claim=True)
    books.settle(rnd, Answer(waiting=True))  # empty, and this claim began the wait
    assert books.hints.worth("a"), "one more look at once"
    due = books.hints.next_due()
    assert due is not None and 0 < due - time.monotonic() <= WAIT_RECHECK
