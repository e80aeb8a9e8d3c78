"""Limits in code: typed concurrency keys on Task.enqueue*, and queue limits declared on @app.task
(FlowLimits) written when a worker starts, idempotently, removed only with prune_limits."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from pgq_client import App, FlowLimits, JobContext
from worker_support import scalar, wait_for


def limits_of(conn: psycopg.Connection[Any], queue: str) -> tuple[Any, ...] | None:
    return conn.execute("select concurrency, key_concurrency, ordered, rate, per, key_rate, key_per"
                        " from q.limits(%s)", (queue,)).fetchone()


def held(conn: psycopg.Connection[Any], queue: str) -> int:
    return int(conn.execute("select coalesce(sum(held), 0) from q.limits(%s)", (queue,)).fetchone()[0])


def test_typed_enqueue_puts_jobs_under_their_concurrency_key_sync_and_async(conn: psycopg.Connection[Any],
                                                                           db_url: str) -> None:
    app = App()

    @app.task(queue="reports")
    def report(payload: dict[str, Any]) -> None: ...

    conn.execute("select q.configure('reports', key_concurrency => 1)")
    first = report.enqueue(conn, {"n": 1}, concurrency_key="t1")
    report.enqueue(conn, {"n": 2}, concurrency_key="t1")
    assert held(conn, "reports") == 1, "the second job of key t1 waits for the first"
    assert "t1" in " ".join(r[1] for r in conn.execute("select * from q.explain(%s)", (first + 1,)))
    report.enqueue_many(conn, [{"n": 3}, {"n": 4}], concurrency_key="t2")
    assert held(conn, "reports") == 2
    report.enqueue_many(conn, [{"n": 5}, {"n": 6}], concurrency_keys=["t3", "t4"])
    assert held(conn, "reports") == 2, "one key each: both admitted"

    async def from_async() -> None:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as aconn:
            await report.enqueue_async(aconn, {"n": 7}, concurrency_key="t3")
            await report.enqueue_many_async(aconn, [{"n": 8}, {"n": 9}], concurrency_keys=["t4", "t5"])

    asyncio.run(from_async())
    assert held(conn, "reports") == 4, "t3 and t4 were taken: 7 and 8 wait, 9 (t5) is admitted"


def test_declared_limits_are_written_once_kept_when_undeclared_and_removed_only_with_prune(
        conn: psycopg.Connection[Any], caplog: pytest.LogCaptureFixture) -> None:
    app = App()

    @app.task(queue="render", concurrency=8,
              limits=FlowLimits(concurrency=2, key_concurrency=3, rate=100, per=60, key_rate=5))
    def render(payload: dict[str, Any]) -> None: ...

    @app.task(queue="plain")
    def plain(payload: dict[str, Any]) -> None: ...

    plans = app.sync_limits(conn)
    assert [p.queue for p in plans if p.changes] == ["render"]
    assert limits_of(conn, "render") == (2, 3, False, 100, timedelta(minutes=1), 5, timedelta(seconds=1))
    assert limits_of(conn, "plain") is None
    assert all(not p.changes for p in app.sync_limits(conn)), "a second start writes nothing"

    # Someone limits `plain` by hand, and the code of `render` drops its rate and key limits.
    conn.execute("select q.configure('plain', concurrency => 7)")
    app.tasks["render"].limits = FlowLimits(concurrency=3)
    with caplog.at_level(logging.WARNING, logger="pgq.app"):
        app.sync_limits(conn)
    assert limits_of(conn, "render") == (3, 3, False, 100, timedelta(minutes=1), 5, timedelta(seconds=1)), \
        "the changed limit is written; the undeclared ones stay"
    assert limits_of(conn, "plain")[0] == 7
    warned = [r.getMessage() for r in caplog.records if r.name == "pgq.app"]
    assert any("queue render" in w and "key_concurrency=3, rate=100, key_rate=5" in w and "prune_limits" in w
               for w in warned), warned
    assert any("queue plain" in w and "concurrency=7" in w for w in warned), warned

    app.sync_limits(conn, prune=True)
    assert limits_of(conn, "render") == (3, None, False, None, None, None, None)
    assert limits_of(conn, "plain") is None, "App(prune_limits=True) makes the code the only source"


def test_ordered_and_bad_declarations() -> None:
    assert FlowLimits(ordered=True).wanted()["key_concurrency"] == 1
    for bad in ({"ordered": True, "key_concurrency": 2}, {"key_rate": 3}, {"per": 5}, {}):
        with pytest.raises(ValueError):
            FlowLimits(**bad)
    with pytest.raises(TypeError, match="FlowLimits"):
        App().task(queue="x", limits={"concurrency": 2})  # type: ignore[arg-type]


def test_a_worker_writes_the_declared_limit_at_start_and_it_holds_over_its_handler_slots(
        db_url: str, spawn: Callable[..., Any]) -> None:
    """`render` has 5 handler slots but FlowLimits(concurrency=2): never more than 2 ran at once."""
    from limits_test_app import render
    from settings_test_app import RUNS_TABLE
    from test_app_settings_take_effect import most_at_once

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(RUNS_TABLE)
        assert limits_of(conn, "render") is None
        render.enqueue_many(conn, [{"n": i, "ms": 200} for i in range(10)])
    worker = spawn(db_url, handler="limits_test_app:app")
    wait_for(lambda: scalar(db_url, "select count(*) from settings_runs where phase = 'end'") == 10, 60,
             "every render job")
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0, worker.output()
    assert most_at_once(db_url, "render") == 2, worker.output()
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert limits_of(conn, "render")[0] == 2


def test_a_worker_without_pgq_admin_names_the_fix(db_url: str) -> None:
    app = App(database_url=db_url)

    @app.task(queue="render", limits=FlowLimits(concurrency=2))
    def render(payload: dict[str, Any], job: JobContext) -> None: ...

    err = app._needs_admin(psycopg.errors.InsufficientPrivilege("permission denied for function configure"))
    assert "queue limits" in str(err) and "limits_at_startup=False" in str(err) and "app.sync_limits(conn)" in str(err)
