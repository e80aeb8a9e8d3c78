"""Timing, wake-up and shutdown decisions, driven by made-up clocks."""

from __future__ import annotations

import random

import pytest
from pgq_client.worker._plan import NOTIFY_DEBOUNCE, ClaimPlan, Notice
from pgq_client.worker._schedule import DRAIN_TICK, ReapClock, Step, Supervisor
from pgq_client.worker._wakeups import Waker


def test_the_supervisor_polls_every_interval() -> None:
    sup = Supervisor.start(0.0, poll_interval=1.0, grace_period=5.0)
    assert sup.step(0.5, stopping=False, in_hand=0, busy=False) == ([], 0.5)
    assert sup.step(1.0, stopping=False, in_hand=0, busy=False) == ([Step.POLL], 1.0)


def test_a_stop_waits_for_running_jobs_then_exits_when_nothing_is_left() -> None:
    sup = Supervisor.start(0.0, 1.0, grace_period=5.0)
    assert sup.step(2.0, stopping=True, in_hand=3, busy=True)[0] == [Step.BEGIN_STOP]
    assert sup.step(2.1, stopping=True, in_hand=3, busy=True) == ([], DRAIN_TICK)
    assert sup.step(3.0, stopping=True, in_hand=0, busy=True) == ([], DRAIN_TICK), "outcomes still to send"
    assert sup.step(3.1, stopping=True, in_hand=0, busy=False)[0] == [Step.EXIT]


def test_after_the_grace_period_unfinished_jobs_are_given_back_once_then_the_worker_exits() -> None:
    sup = Supervisor.start(0.0, 1.0, grace_period=5.0)
    sup.step(0.0, stopping=True, in_hand=1, busy=True)
    assert sup.step(5.0, stopping=True, in_hand=1, busy=True)[0] == [Step.GIVE_BACK]
    assert sup.step(5.02, stopping=True, in_hand=1, busy=True)[0] == [], "given back once"
    assert sup.step(5.04, stopping=True, in_hand=1, busy=False)[0] == [Step.EXIT], "releases sent"


def test_reap_turns_are_jittered_around_the_interval() -> None:
    clock = ReapClock.start(0.0, 1.0, random.Random(4))
    assert 0.0 <= clock.next_at <= 1.0
    clock.reaped(10.0)
    assert 10.9 <= clock.next_at <= 11.1 and not clock.due(10.8)
    clock.reaped_early(20.0)
    assert clock.next_at == 21.0


def test_one_piece_of_news_wakes_one_idle_loop_the_most_recent() -> None:
    waker = Waker(3)
    for i in range(3):
        waker.arm(i)
    assert waker.wake_one() and waker.idle == 2
    waker.wait(2, 0.0)  # loop 2 was woken: its gate is open, the wait returns at once
    assert waker.wake_one() and waker.wake_one() and not waker.wake_one()


@pytest.mark.serial  # under 1 s: CPU contention could break it
def test_news_between_a_loops_look_and_its_wait_is_not_lost() -> None:
    waker = Waker(1)
    waker.arm(0)  # armed before looking at the books
    waker.wake_one()  # news arrives before it waits
    import time

    t0 = time.monotonic()
    waker.wait(0, 5.0)
    assert time.monotonic() - t0 < 1.0, "the wake-up found it armed"


def test_the_claim_plan_round_robins_over_queues_with_work_and_a_hint_beats_a_short_claim() -> None:
    plan = ClaimPlan(("a", "b"))
    assert plan.pick() == ("a", 0) and plan.pick() == ("b", 0)
    plan.claimed("a", 5, 2, 0, 0.0)  # short: no more work in a
    assert plan.pick() == ("b", 0) and plan.pick() == ("b", 0)
    queue, hints = plan.pick()  # type: ignore[misc]
    plan.hint("b")  # a NOTIFY while the claim of b is on its way
    plan.claimed("b", 5, 0, hints, 0.0)
    assert plan.pick() == ("b", 1), "the hint wins over the short claim"
    assert plan.pick(allowed={"a"}) is None
    assert not plan.hint("not ours")


def test_a_rate_limited_queue_is_hinted_again_when_its_next_slot_frees() -> None:
    plan = ClaimPlan(("limited", "other"))
    queue, hints = plan.pick()  # type: ignore[misc]
    plan.claimed("limited", 10, 3, hints, 0.0)  # cut short by the rate
    plan.defer("limited", 100.5)
    plan.defer("limited", 100.2)  # the earlier time wins
    plan.defer("unknown", 1.0)  # not ours: ignored
    assert plan.next_due() == 100.2
    assert not plan.worth("limited")
    assert not plan.release_due(100.1)
    assert plan.release_due(100.2) and plan.worth("limited") and plan.next_due() is None


def flood(plan: ClaimPlan, start: float, seconds: float, every: float = 0.001) -> tuple[int, int]:
    """Notifications of queue "a" every ``every`` seconds; a claim whenever the plan says one is worth it
    (each takes 1 ms and finds nothing), and the deferred claims the supervisor releases. Returns
    (claims, notifications)."""
    claims = notes = 0
    now = start
    in_flight: tuple[float, int] | None = None  # (comes back at, hints when taken)
    while now < start + seconds:
        plan.release_due(now)
        if in_flight is not None and now >= in_flight[0]:
            plan.claimed("a", 10, 0, in_flight[1], now)
            in_flight = None
        plan.notified("a", now)
        notes += 1
        if in_flight is None:
            picked = plan.pick()
            if picked is not None:
                claims += 1
                in_flight = (now + 0.001, picked[1])
        now += every
    return claims, notes


def test_a_flood_of_notifications_costs_at_most_one_empty_claim_per_queue_per_debounce_slice() -> None:
    plan = ClaimPlan(("a",))
    plan.claimed("a", 10, 0, 0, 0.0)  # the worker's first look found nothing
    claims, notes = flood(plan, 1.0, 10.0)
    slices = 10.0 / NOTIFY_DEBOUNCE
    print(f"{notes} notifications in 10 s, {claims} claims")
    assert claims <= slices + 2, f"{claims} claims for {slices:.0f} slices"
    assert claims >= slices * 0.9, "the flood still gets its claim every slice: a real job would start"


def test_a_notification_in_a_quiet_slice_claims_at_its_end_and_a_claim_that_finds_jobs_ends_the_slice() -> None:
    plan = ClaimPlan(("a", "b"))
    assert plan.notified("a", 1.0) is Notice.CLAIM
    _, hints = plan.pick()  # type: ignore[misc]
    plan.claimed("a", 10, 0, hints, 1.002)  # empty: a quiet slice until 1.102
    assert plan.notified("a", 1.05) is Notice.LATER and not plan.worth("a")
    assert plan.take_sooner() and not plan.take_sooner(), "the supervisor's timer is told once"
    assert plan.next_due() == 1.002 + NOTIFY_DEBOUNCE
    assert plan.notified("b", 1.05) is Notice.CLAIM, "another queue is not held back"
    assert plan.notified("ours?", 1.05) is Notice.IGNORE
    assert plan.release_due(1.102) and plan.worth("a")
    assert plan.notified("a", 1.103) is Notice.COMING, "the slice's one claim is coming: no second one"
    _, hints = plan.pick(allowed={"a"})  # type: ignore[misc]
    plan.claimed("a", 10, 3, hints, 1.104)  # it found jobs: no slice any more
    assert plan.notified("a", 1.105) is Notice.CLAIM


def test_a_hint_during_an_empty_claim_a_notification_asked_for_waits_for_the_slice_end() -> None:
    plan = ClaimPlan(("a",))
    plan.notified("a", 1.0)
    _, hints = plan.pick()  # type: ignore[misc]
    plan.notified("a", 1.0005)  # another one while the claim is on its way: it counts as a hint
    plan.claimed("a", 10, 0, hints, 1.001)
    assert not plan.worth("a") and plan.next_due() == 1.001 + NOTIFY_DEBOUNCE, "one empty claim per slice"


def test_empty_claims_no_notification_asked_for_start_no_slice() -> None:
    plan = ClaimPlan(("a",))
    plan.claimed("a", 10, 0, 0, 1.0)  # the poll's claim found nothing
    assert plan.notified("a", 1.01) is Notice.CLAIM, "a job enqueued just after a poll starts at once"


def test_an_empty_claim_a_limit_cut_short_starts_no_slice_so_the_next_freed_slot_claims_at_once() -> None:
    plan = ClaimPlan(("limited",))
    plan.notified("limited", 1.0)
    _, hints = plan.pick()  # type: ignore[misc]
    plan.claimed("limited", 10, 0, hints, 1.001, limited=True)  # every slot taken: jobs wait behind the limit
    assert plan.notified("limited", 1.01) is Notice.CLAIM, "the freed slot's NOTIFY is not held back"


def test_a_listening_worker_claims_a_queue_until_a_claim_comes_back_empty() -> None:
    # Wake-ups on demand: only an empty claim records the wait that makes enqueues notify.
    plan = ClaimPlan(("a",), until_empty=True)
    _, hints = plan.pick()  # type: ignore[misc]
    plan.claimed("a", 10, 3, hints, 0.0)
    assert plan.worth("a"), "short but not empty: nobody would tell us about the next job"
    _, hints = plan.pick()  # type: ignore[misc]
    plan.claimed("a", 10, 0, hints, 0.0)
    assert not plan.worth("a"), "empty: the claim recorded the wait, a NOTIFY will come"
    poller = ClaimPlan(("a",))
    _, hints = poller.pick()  # type: ignore[misc]
    poller.claimed("a", 10, 3, hints, 0.0)
    assert not poller.worth("a"), "a worker that does not listen stops at a short claim, as before"


def test_an_empty_claim_that_was_on_its_way_when_another_found_jobs_does_not_stop_the_claims() -> None:
    # Two claim loops: B found jobs (and so ended the wait A's empty claim may have seen as begun).
    plan = ClaimPlan(("a",), until_empty=True)
    _, hints_a = plan.pick()  # type: ignore[misc]
    _, hints_b = plan.pick()  # type: ignore[misc]
    plan.claimed("a", 10, 10, hints_b, 0.0)
    plan.claimed("a", 10, 0, hints_a, 0.0)
    assert plan.worth("a")


def test_a_claim_cut_short_by_a_limit_stops_at_short_even_when_listening() -> None:
    plan = ClaimPlan(("limited",), until_empty=True)
    _, hints = plan.pick()  # type: ignore[misc]
    plan.claimed("limited", 10, 2, hints, 0.0, limited=True)
    assert not plan.worth("limited"), "the next freed slot notifies (q.flow_want)"
