"""The worker's timing and shutdown decisions, without I/O: given the time and the books, what to do next.

The supervisor (the thread or task that runs :meth:`Worker.run`) and the
maintenance loop ask these objects what is due and carry it out; the unit
tests drive them with made-up clocks (``tests/unit/test_supervisor_and_wakeups.py``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum

DRAIN_TICK = 0.02  # seconds between the supervisor's looks while running jobs finish after a stop


class Step(str, Enum):
    POLL = "poll"  # every queue is worth a claim again; wake one idle claim loop
    BEGIN_STOP = "begin_stop"  # log worker_stopping, mark held jobs, give back unstarted ones, wake every loop
    GIVE_BACK = "give_back"  # the grace period is over: release every unfinished job, wake a loop to send it
    EXIT = "exit"  # nothing left to wait for: finish the claim loops and shut down


@dataclass
class Supervisor:
    """Poll timer and shutdown sequence.

    Running: a poll every poll_interval. After a stop: running jobs get
    grace_period seconds; the worker exits as soon as nothing is held and
    nothing is left to send, or, once the grace period is over, as soon as the
    releases of what was still running are sent.
    """

    poll_interval: float
    grace_period: float
    poll_at: float
    draining_until: float | None = None
    gave_back: bool = False

    @classmethod
    def start(cls, now: float, poll_interval: float, grace_period: float) -> Supervisor:
        return cls(poll_interval, grace_period, now + poll_interval)

    def step(self, now: float, *, stopping: bool, in_hand: int, busy: bool) -> tuple[list[Step], float]:
        """What to do now, and how long to wait (at most) before the next step."""
        steps: list[Step] = []
        if stopping and self.draining_until is None:
            self.draining_until = now + self.grace_period
            steps.append(Step.BEGIN_STOP)
            return steps, 0.0  # look again at once, with the unstarted jobs given back
        if self.draining_until is not None:
            if in_hand <= 0 and not busy:
                return [Step.EXIT], 0.0
            if now >= self.draining_until and not self.gave_back:
                self.gave_back = True
                return [Step.GIVE_BACK], DRAIN_TICK
            if self.gave_back and not busy:
                return [Step.EXIT], 0.0
            return steps, DRAIN_TICK
        if now >= self.poll_at:
            steps.append(Step.POLL)
            self.poll_at = now + self.poll_interval
        return steps, max(0.0, self.poll_at - now)


@dataclass
class ReapClock:
    """When this worker takes its turn at q.reap: about every reap_interval, jittered so workers spread out."""

    interval: float
    next_at: float
    rng: random.Random = field(default_factory=random.Random)

    @classmethod
    def start(cls, now: float, interval: float, rng: random.Random | None = None) -> ReapClock:
        rng = rng or random.Random()
        return cls(interval, now + rng.uniform(0, interval), rng)

    def due(self, now: float) -> bool:
        return now >= self.next_at

    def reaped(self, now: float) -> None:
        """A turn was taken: the next one in 0.9-1.1 intervals."""
        self.next_at = now + self.interval * self.rng.uniform(0.9, 1.1)

    def reaped_early(self, now: float) -> None:
        """An extra turn (our old liveness key was freed): the regular one an interval later."""
        self.next_at = now + self.interval
