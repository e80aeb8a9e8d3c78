"""Signals and crashes of real `pgq worker` processes: SIGTERM, a second SIGTERM, the grace period, SIGKILL."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from pgq_client import claim, enqueue
from worker_support import listener_pids, prepare, ready, scalar, wait_for


def runs(url: str, job_id: int, phase: str) -> list[tuple[int, int]]:
    """(pid, attempt) of each logged run phase of a job."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "select pid, attempt from test_runs where job_id = %s and phase = %s order by at", (job_id, phase)
        ).fetchall()


def add(url: str, payload: dict[str, Any]) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        return enqueue(conn, "w", payload)


def test_sigterm_mid_job_lets_the_job_finish_and_exits_zero(db_url: str, spawn: Callable[..., Any]) -> None:
    prepare(db_url)
    worker = spawn(db_url, "-q", "w")
    ready(db_url)
    job = add(db_url, {"sleep": 1.5})
    wait_for(lambda: runs(db_url, job, "start"), 10, "the job to start")
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0, worker.output()
    assert runs(db_url, job, "end"), "the running job was not allowed to finish"
    assert scalar(db_url, "select state from q_data.job_history where id = %s", (job,)) == "completed"
    log = worker.output()
    assert "worker_stopping" in log and "worker_stopped" in log


def test_second_sigterm_gives_the_job_back_and_it_is_claimable_at_once(db_url: str, spawn: Callable[..., Any]) -> None:
    prepare(db_url)
    worker = spawn(db_url, "-q", "w")
    ready(db_url)
    job = add(db_url, {"sleep": 60})
    wait_for(lambda: runs(db_url, job, "start"), 10, "the job to start")
    worker.signal(signal.SIGTERM)
    time.sleep(0.3)
    worker.signal(signal.SIGTERM)
    assert worker.wait(10) == 0, worker.output()
    with psycopg.connect(db_url, autocommit=True) as conn:
        state, attempt = conn.execute("select state, attempt from q_data.job where id = %s", (job,)).fetchone()
        assert (state, attempt) == ("w", 0), "released, and the interrupted attempt does not count"
        again = claim(conn, "w", 1, owner=0)
    assert [j.id for j in again] == [job]
    assert again[0].attempt == 1
    assert "job_released" in worker.output()


def test_jobs_still_running_when_the_grace_period_ends_are_given_back(db_url: str, spawn: Callable[..., Any]) -> None:
    prepare(db_url)
    worker = spawn(db_url, "-q", "w", "--grace-period", "1")
    ready(db_url)
    job = add(db_url, {"sleep": 60})
    wait_for(lambda: runs(db_url, job, "start"), 10, "the job to start")
    worker.signal(signal.SIGTERM)
    assert worker.wait(10) == 0, worker.output()
    assert scalar(db_url, "select state from q_data.job where id = %s", (job,)) == "w"


@pytest.mark.serial  # a 2 s bound: CPU contention could break it
def test_sigkilled_worker_job_runs_in_another_worker_within_two_seconds(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url)
    victim = spawn(db_url, "-q", "w")
    ready(db_url)
    job = add(db_url, {"sleep_first": 60})  # the first attempt hangs; the second one finishes at once
    wait_for(lambda: runs(db_url, job, "start"), 10, "the job to start")
    rescuer = spawn(db_url, "-q", "w")
    ready(db_url, 2)
    time.sleep(0.3)
    victim.signal(signal.SIGKILL)
    killed = time.monotonic()
    wait_for(lambda: runs(db_url, job, "end"), 10, "the job to run elsewhere")
    elapsed = time.monotonic() - killed
    print(f"killed worker's job finished elsewhere after {elapsed * 1000:.0f} ms")
    (pid, attempt), = runs(db_url, job, "end")
    assert pid == rescuer.pid and attempt == 2
    assert elapsed < 2.0
    # The handler logs "end" before the worker's next round trip completes the job: wait for that.
    crashes = wait_for(lambda: scalar(db_url, "select array_agg(crashes) from q_data.job_history where id = "
                                              "%s", (job,)),
                       10, "the job to be completed")
    assert crashes == [1]
    assert len(listener_pids(db_url)) == 1


def test_async_worker_process_finishes_its_job_on_sigterm_and_gives_it_back_on_a_second(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url)
    worker = spawn(db_url, "-q", "w", handler="worker_test_handlers:run_async")
    ready(db_url)
    short = add(db_url, {"sleep": 1.0})
    wait_for(lambda: scalar(db_url, "select count(*) from q_data.job where state = 'r'"), 10, "the job to start")
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0, worker.output()
    assert scalar(db_url, "select state from q_data.job_history where id = %s", (short,)) == "completed"

    worker = spawn(db_url, "-q", "w", handler="worker_test_handlers:run_async")
    ready(db_url)
    long = add(db_url, {"sleep": 60})
    wait_for(lambda: scalar(db_url, "select count(*) from q_data.job where state = 'r'"), 10, "the job to start")
    worker.signal(signal.SIGTERM)
    time.sleep(0.3)
    worker.signal(signal.SIGTERM)
    assert worker.wait(10) == 0, worker.output()
    assert scalar(db_url, "select (state, attempt) = ('w', 0::smallint) from q_data.job where id = %s", (long,))
