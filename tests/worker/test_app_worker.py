"""An App's worker: one process serves every task, each queue with its own handler and concurrency."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from pgq_client import App, JobContext
from worker_support import DONE_TABLE, prepare, scalar, wait_for


def most_at_once(url: str, queue: str) -> int:
    """From the independent run log: the most jobs of a queue whose [start, end] overlapped."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "with runs as (select s.job_id, s.at as t0, e.at as t1 from test_runs s"
            "  join test_runs e on e.job_id = s.job_id and e.phase = 'end' and e.attempt = s.attempt"
            "  join q_data.job_history h on h.id = s.job_id join q_data.queue qq on qq.id = h.queue_id"
            "  where s.phase = 'start' and qq.name = %s)"
            " select coalesce(max((select count(*) from runs b where b.t0 <= a.t0 and b.t1 > a.t0)), 0) from runs a",
            (queue,),
        ).fetchone()[0]


def test_one_process_serves_every_task_each_within_its_own_concurrency(
    db_url: str, spawn: Callable[..., Any]
) -> None:
    prepare(db_url, "slow")
    prepare(db_url, "fast")
    from worker_test_app import Thumb, make_thumbnail, ping

    with psycopg.connect(db_url) as conn, conn.transaction():
        make_thumbnail.enqueue_many(conn, [Thumb(n=i, ms=150) for i in range(12)])
        ping.enqueue_many(conn, [{"n": i, "ms": 100} for i in range(18)])
    worker = spawn(db_url, handler="worker_test_app:app")
    wait_for(lambda: scalar(db_url, "select count(*) from q_data.job_history where state = 'completed'") == 30, 60,
             "every job of both tasks")
    worker.signal(signal.SIGTERM)
    assert worker.wait(15) == 0, worker.output()
    assert most_at_once(db_url, "slow") == 2, "the slow task ran at most (and at full) its concurrency of 2"
    assert most_at_once(db_url, "fast") == 3
    assert "startup hook ran" in worker.output()
    assert scalar(db_url, "select count(distinct pid) from test_runs") == 1, "one process"


def test_app_worker_in_process_and_typed_enqueue_inside_the_callers_transaction(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(DONE_TABLE)
    app = App(database_url=db_url, poll_interval=0.2)
    seen: list[Any] = []

    @app.task(queue="a", max_attempts=7, priority=3)
    def a(payload: dict[str, Any], job: JobContext) -> None:
        seen.append(("a", payload["n"]))

    with psycopg.connect(db_url) as conn:
        a.enqueue(conn, {"n": 1})
        conn.rollback()
        with conn.transaction():
            job_id = a.enqueue(conn, {"n": 2}, dedup_key="two")
            assert a.enqueue(conn, {"n": 2}, dedup_key="two") == job_id
    assert scalar(db_url, "select (priority, max_attempts) = (3::smallint, 7::smallint) from q_data.job where id = %s",
                  (job_id,))
    worker = app.worker()
    assert [lane.queues for lane in worker.lanes] == [("a",)]
    worker.start()
    try:
        wait_for(lambda: seen, 15, "the committed job")
    finally:
        worker.stop()
        assert worker.join(15)
    assert seen == [("a", 2)]


def test_app_refuses_two_tasks_on_one_queue_and_unknown_options() -> None:
    app = App()
    app.task(queue="x")(print)
    with pytest.raises(ValueError, match="already has a task"):
        app.task(queue="x")(repr)
    with pytest.raises(TypeError, match="unknown worker option"):
        App(concurrenc=3)
    with pytest.raises(ValueError, match="no task for queue 'y'"):
        app.worker(queues=["y"])


def test_plain_tasks_of_an_async_worker_run_at_their_full_concurrency(db_url: str) -> None:
    """asyncio's default executor has 6 threads on 2 cores: a task with concurrency 10 must get 10."""
    import asyncio
    import threading

    app = App(database_url=db_url, poll_interval=0.2)
    together = threading.Barrier(10, timeout=10)

    @app.task(queue="plain", concurrency=10)
    def plain(payload: dict[str, Any]) -> None:
        together.wait()  # breaks (and the job fails) unless 10 run at once

    @app.task(queue="coro", concurrency=1)
    async def coro(payload: dict[str, Any]) -> None:
        return None

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.configure('plain', keep_completed => true)")
        plain.enqueue_many(conn, [{"n": i} for i in range(10)])

    async def main() -> None:
        worker = app.worker()
        task = asyncio.create_task(worker.run(install_signal_handlers=False))
        for _ in range(300):
            if scalar(db_url, "select count(*) from q_data.job_history") >= 10:
                break
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(task, 15)

    asyncio.run(main())
    assert scalar(db_url, "select count(*) from q_data.job_history where state = 'completed'") == 10
