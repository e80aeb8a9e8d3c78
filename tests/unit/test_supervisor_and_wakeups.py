"""Timing, wake-up and shutdown decisions (``worker/_supervisor.py``, ``worker/_wakeups.py``),
driven by made-up clocks."""

from __future__ import annotations

import random

import pytest
from pgq_client.worker._supervisor import DRAIN_TICK, ReapClock, Step, Supervisor
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
