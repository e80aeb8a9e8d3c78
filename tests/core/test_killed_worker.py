"""A SIGKILLed worker process: its jobs come back within 2 s through the
session evidence (its q.session_key backend is gone), not after the lease; and
a live worker's jobs are left alone."""

from __future__ import annotations

import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

HOLD_CLAIMS = Path(__file__).resolve().parent / "scripts" / "hold_claims.py"
RECLAIM_PROMISE = 2.0  # seconds from the kill until the jobs are claimable again
REAP_EVERY = 0.1  # how often the reaper loop calls q.reap(), as workers do


@pytest.fixture
def hold_claims(db_url: str) -> Iterator[Callable[[str, int, str], tuple[subprocess.Popen[str], list[int]]]]:
    """Start a worker process that claims n jobs and sleeps; yields (process, claimed ids)."""
    started: list[subprocess.Popen[str]] = []

    def start(queue: str, n: int, mode: str) -> tuple[subprocess.Popen[str], list[int]]:
        proc = subprocess.Popen(
            [sys.executable, str(HOLD_CLAIMS), db_url, queue, str(n), mode],
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "the worker process did not report its claims within 30 s"
        line = proc.stdout.readline()
        assert line, f"the worker process exited with {proc.wait()} before claiming"
        return proc, [int(x) for x in line.split()]

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def enqueue_jobs(conn: psycopg.Connection[Any], queue: str, count: int) -> list[int]:
    payloads = Jsonb([{"n": n} for n in range(count)])
    return [r[0] for r in conn.execute("select q.enqueue_many(%s, %s)", (queue, payloads)).fetchall()]


def kill_and_reap(conn: psycopg.Connection[Any], proc: subprocess.Popen[str], expected: int) -> float:
    """SIGKILL the worker, call q.reap() every 100 ms until `expected` claims came back; seconds taken."""
    proc.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    proc.wait(timeout=10)
    recovered = 0
    while recovered < expected and time.monotonic() - killed_at < 10 * RECLAIM_PROMISE:
        recovered += conn.execute("select q.reap()").fetchone()[0]
        if recovered < expected:
            time.sleep(REAP_EVERY)
    elapsed = time.monotonic() - killed_at
    assert recovered == expected, f"reaped {recovered} of {expected} claims in {elapsed:.2f} s"
    return elapsed


def assert_returned_as_crashed(conn: psycopg.Connection[Any], ids: list[int]) -> None:
    rows = conn.execute(
        "select id, state, crashes, attempt, token, owner, errors from q_data.job where id = any(%s) order by "
        "id", (ids,)
    ).fetchall()
    assert [r[0] for r in rows] == sorted(ids)
    for job_id, state, crashes, attempt, token, owner, errors in rows:
        assert (state, crashes, attempt, token, owner) == ("w", 1, 1, None, None), job_id
        assert len(errors) == 1
        assert errors[0]["crashed"] is True
        assert errors[0]["attempt"] == 1
        assert "worker session ended" in errors[0]["error"]


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param("session", id="claimed-with-its-own-session-key"),
        pytest.param("owner-key", id="claimed-with-a-key-held-on-a-liveness-connection"),
    ],
)
@pytest.mark.serial  # a 2 s bound: CPU contention could break it
def test_jobs_of_a_sigkilled_worker_process_are_claimable_again_within_2_seconds(
    conn: psycopg.Connection[Any], db_url: str, hold_claims: Any, mode: str
) -> None:
    ids = enqueue_jobs(conn, "killed", 10)
    proc, claimed = hold_claims("killed", 10, mode)
    assert sorted(claimed) == sorted(ids)
    owners = conn.execute("select count(*), count(distinct owner) from q_data.job where state = 'r' and owner is "
                          "not null")
    assert owners.fetchone() == (10, 1), "every claim names the worker's liveness key"
    lease_left = conn.execute("select min(lease_until) - clock_timestamp() from q_data.job").fetchone()[0]
    assert lease_left.total_seconds() > 60, "the default lease is long: recovery must not depend on it"

    elapsed = kill_and_reap(conn, proc, 10)
    print(f"{mode}: 10 jobs back to waiting {elapsed:.3f} s after SIGKILL")
    assert elapsed < RECLAIM_PROMISE

    assert_returned_as_crashed(conn, ids)
    with psycopg.connect(db_url, autocommit=True) as other:
        reclaimed = other.execute("select id, attempt, crashes from q.claim('killed', 10)").fetchall()
    assert sorted(r[0] for r in reclaimed) == sorted(ids)
    assert {(r[1], r[2]) for r in reclaimed} == {(2, 1)}


def test_a_live_workers_jobs_are_not_reaped_before_their_lease_ends(
    conn: psycopg.Connection[Any], hold_claims: Any
) -> None:
    ids = enqueue_jobs(conn, "alive", 10)
    proc, claimed = hold_claims("alive", 10, "session")
    assert sorted(claimed) == sorted(ids)
    before = conn.execute("select id, token, lease_until from q_data.job order by id").fetchall()

    for _ in range(5):
        assert conn.execute("select q.reap()").fetchone()[0] == 0
        time.sleep(REAP_EVERY)

    assert proc.poll() is None, "the worker is still alive"
    assert conn.execute("select id, token, lease_until from q_data.job order by id").fetchall() == before
    assert conn.execute("select count(*) from q_data.job where state = 'r'").fetchone()[0] == 10


def test_a_live_workers_jobs_held_by_a_liveness_connection_key_are_not_reaped(
    conn: psycopg.Connection[Any], hold_claims: Any
) -> None:
    enqueue_jobs(conn, "alive", 10)
    proc, claimed = hold_claims("alive", 10, "owner-key")
    assert len(claimed) == 10

    for _ in range(5):
        assert conn.execute("select q.reap()").fetchone()[0] == 0
        time.sleep(REAP_EVERY)

    assert proc.poll() is None
    assert conn.execute("select count(*) from q_data.job where state = 'r'").fetchone()[0] == 10
