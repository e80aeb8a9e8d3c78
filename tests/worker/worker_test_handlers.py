"""Handlers the worker tests run (in ``pgq worker`` processes and in-process workers).

The payload says what to do: ``{"n": 1, "sleep": 0.5, "fail": "boom", "sleep_first": 30}``.
Every run is logged in the test database's ``test_runs`` table (phase
``start`` and ``end``), so tests can see which process ran what, and when.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import psycopg
from pgq_client import JobContext

_local = threading.local()


def _conn() -> psycopg.Connection[Any]:
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True, prepare_threshold=None)
        _local.conn = conn
    return conn


def _n(payload: Any) -> Any:
    return payload.get("n") if isinstance(payload, dict) else getattr(payload, "n", None)


def log_run(job: JobContext, phase: str) -> None:
    for attempt in range(50):  # the database may be restarting: the log must not lose runs
        try:
            _conn().execute(
                "insert into test_runs (job_id, n, pid, attempt, phase) values (%s, %s, %s, %s, %s)",
                (job.id, _n(job.payload), os.getpid(), job.attempt, phase),
            )
            return
        except psycopg.OperationalError:
            _local.conn = None
            time.sleep(0.2 + attempt * 0.05)


def run(payload: dict[str, Any], job: JobContext) -> None:
    log_run(job, "start")
    seconds = payload.get("sleep", 0)
    if job.attempt == 1 and payload.get("sleep_first"):
        seconds = payload["sleep_first"]
    if seconds:
        job.wait(seconds)
    if payload.get("fail"):
        raise RuntimeError(payload["fail"])
    log_run(job, "end")


def noop(payload: Any) -> None:
    return None


async def run_async(payload: dict[str, Any], job: JobContext) -> None:
    import asyncio

    await asyncio.sleep(payload.get("sleep", 0))
    if payload.get("fail"):
        raise RuntimeError(payload["fail"])


class UnprintableError(Exception):
    """An exception whose message cannot be had: its __str__ raises."""

    def __str__(self) -> str:
        raise RuntimeError("this exception cannot be printed")


# Messages a text column cannot hold: a NUL, and lone surrogates (bytes decoded with surrogateescape).
HOSTILE_MESSAGES = {
    "nul": "bad byte \x00 in the middle",
    "surrogate": "undecodable " + b"\xff\xfe".decode("utf-8", "surrogateescape"),
    "both": "\x00" + b"\x80".decode("utf-8", "surrogateescape") + " \ud800",
}


def raise_hostile(payload: dict[str, Any], job: JobContext) -> None:
    """``{"raise": "nul" | "surrogate" | "both" | "unprintable"}`` raises such an exception; else runs as run."""
    kind = payload.get("raise")
    if kind == "unprintable":
        log_run(job, "start")
        raise UnprintableError()
    if kind in HOSTILE_MESSAGES:
        log_run(job, "start")
        raise RuntimeError(HOSTILE_MESSAGES[kind])
    run(payload, job)
