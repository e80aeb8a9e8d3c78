"""One precedence rule for a task's concurrency, batch_size and lease (no database)."""

from __future__ import annotations

from datetime import timedelta

from pgq_client import App
from pgq_client.worker.options import TaskSettings, auto_loops


def test_worker_arguments_beat_the_task_which_beats_the_app_which_beats_the_default() -> None:
    app = App(concurrency=4, batch_size=3, lease=42)

    @app.task(queue="own", concurrency=2, lease=20)
    def own(payload: dict) -> None: ...

    @app.task(queue="plain")
    def plain(payload: dict) -> None: ...

    assert own.settings() == TaskSettings(2, 3, timedelta(seconds=20)), "the task's own, then the App's batch_size"
    assert plain.settings() == TaskSettings(4, 3, timedelta(seconds=42))
    assert own.settings(worker={"concurrency": 7, "lease": 5}) == TaskSettings(7, 3, timedelta(seconds=5))
    assert App().task(queue="bare")(print).settings() == TaskSettings(10, None, None), "the defaults"
    worker = app.worker(database_url="dbname=x", batch_size=1)
    assert [(lane.concurrency, lane.batch_size) for lane in worker.lanes] == [(2, 1), (4, 1)]
    assert (worker.options.concurrency, worker.options.loops, worker.options.pool_size) == (6, 6, 13)


def test_claim_loops_follow_each_lanes_batch_size() -> None:
    assert auto_loops([(4, 3), (2, 1)]) == 4
    assert auto_loops([(10, None)]) == 4
    assert auto_loops([(2, None)]) == 2, "never more than the concurrency"
    assert auto_loops([(10, None), (10, 1)]) == 10, "at least 4 with an automatic lane"
