"""The small records the client returns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID


@dataclass(frozen=True, slots=True)
class Job:
    """A claimed job (one row of ``q.claim``). Finish it with its id and token."""

    id: int
    queue: str
    payload: Any
    attempt: int
    crashes: int
    priority: int
    token: UUID
    lease_until: datetime


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a batch call did to one job: ``retry``/``dead``/``lost`` or ``running``/``cancelled``/``lost``."""

    id: int
    status: str


@dataclass(frozen=True, slots=True)
class QueueStats:
    """One row of ``q.stats()``."""

    queue: str
    paused: bool
    waiting: int
    scheduled: int
    running: int
    dead: int
    oldest_waiting: timedelta | None


@dataclass(frozen=True, slots=True)
class JobInfo:
    """One row of ``q.jobs()``: a job wherever it is, live or finished."""

    id: int
    queue: str
    state: str
    attempt: int
    crashes: int
    priority: int
    run_at: datetime
    lease_until: datetime | None
    finished_at: datetime | None
    dedup_key: str | None
    payload: Any
    errors: list[dict[str, Any]] | None
