"""Schedules from Python: the thin client calls, schedules declared on an App and
synced when a worker starts (idempotent, pruned only when asked), the `pgq
schedule` commands, and a worker that really fires them (real PostgreSQL, real
processes)."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pgq_client
import psycopg
import pytest
from pgq_client import App, CatchUp
from test_pgq_command import no_traceback, pgq
from worker_support import ROOT


def make_app(**kwargs: Any) -> tuple[App, Any]:
    app = App(**kwargs)

    @app.periodic(cron="0 3 * * *", timezone="Europe/Berlin", name="nightly", payload={"days": 30})
    @app.periodic(every=timedelta(seconds=30), name="probe", catch_up="none")
    @app.task(queue="maintenance", priority=4, max_attempts=2)
    def cleanup(payload: dict[str, Any]) -> None:
        pass

    return app, cleanup


def test_thin_client_creates_lists_pauses_resumes_and_removes_a_schedule(conn: psycopg.Connection[Any]) -> None:
    made = pgq_client.schedule(conn, "tick", queue="metrics", every=timedelta(seconds=30), payload={"k": 1},
                               catch_up=CatchUp.ALL)
    assert (made.name, made.queue, made.every, made.cron, made.catch_up, made.paused) == (
        "tick", "metrics", timedelta(seconds=30), None, "all", False)
    assert made.next_fire_at is not None and made.next_fire_at.second in (0, 30)
    assert [s.name for s in pgq_client.schedules(conn)] == ["tick"]
    assert pgq_client.pause_schedule(conn, "tick")
    assert pgq_client.schedules(conn, "tick")[0].next_fire_at is None
    assert pgq_client.resume_schedule(conn, "tick")
    assert pgq_client.schedules(conn, "tick")[0].next_fire_at is not None
    assert pgq_client.unschedule(conn, "tick") and not pgq_client.unschedule(conn, "tick")
    assert not pgq_client.pause_schedule(conn, "tick")


def test_a_bad_cron_expression_raises_22023_naming_the_field(conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="hour field"):
        pgq_client.schedule(conn, "bad", queue="q", cron="0 25 * * *")
    assert pgq_client.schedules(conn) == []


def test_app_periodic_declares_schedules_with_the_task_s_queue_and_settings() -> None:
    app, _ = make_app()
    assert sorted(app.schedules) == ["nightly", "probe"]
    nightly = app.schedules["nightly"]
    assert (nightly.queue, nightly.cron, nightly.timezone, nightly.payload, nightly.priority, nightly.max_attempts) == (
        "maintenance", "0 3 * * *", "Europe/Berlin", {"days": 30}, 4, 2)
    assert app.schedules["probe"].every == timedelta(seconds=30) and app.schedules["probe"].catch_up is CatchUp.NONE
    with pytest.raises(ValueError, match="exactly one of cron= and every="):
        app.periodic(cron="* * * * *", every=5)
    with pytest.raises(ValueError, match="named 'nightly' is declared already"):
        app.periodic(cron="* * * * *", name="nightly")(app.tasks["maintenance"])
    with pytest.raises(TypeError, match="goes above @app.task"):
        app.periodic(every=5)(lambda payload: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="catch"):
        app.periodic(every=5, catch_up="sometimes")


def test_sync_creates_then_writes_nothing_when_unchanged(conn: psycopg.Connection[Any], db_url: str) -> None:
    app, _ = make_app()
    with psycopg.connect(db_url) as other:
        assert app.sync_schedules(other) == []
    rows = {s.name: s for s in pgq_client.schedules(conn)}
    assert sorted(rows) == ["nightly", "probe"]
    assert (rows["nightly"].payload, rows["nightly"].priority, rows["nightly"].timezone) == (
        {"days": 30}, 4, "Europe/Berlin")
    versions = conn.execute("select name, xmin::text from q_data.schedule order by 1").fetchall()
    with psycopg.connect(db_url) as other:
        app.sync_schedules(other)
    assert conn.execute("select name, xmin::text from q_data.schedule order by 1").fetchall() == versions, \
        "a second sync of the same declarations wrote nothing"


def test_removing_a_declaration_deletes_the_schedule_only_when_pruning_is_on(
    conn: psycopg.Connection[Any], db_url: str
) -> None:
    app, _ = make_app()
    app.sync_schedules(conn)
    pgq_client.schedule(conn, "elsewhere", queue="other-app", cron="@daily")  # another App's: never pruned
    del app.schedules["probe"]
    assert app.sync_schedules(conn) == []
    assert [s.name for s in pgq_client.schedules(conn)] == ["elsewhere", "nightly", "probe"], "kept without opt-in"
    assert app.sync_schedules(conn, prune=True) == ["probe"]
    assert [s.name for s in pgq_client.schedules(conn)] == ["elsewhere", "nightly"]
    pruning, _ = make_app(prune_schedules=True)
    del pruning.schedules["nightly"]
    assert pruning.sync_schedules(conn) == ["nightly"]


def test_async_sync_writes_the_same_schedules(db_url: str, conn: psycopg.Connection[Any]) -> None:
    import asyncio

    app, _ = make_app()

    async def go() -> list[str]:
        async with await psycopg.AsyncConnection.connect(db_url) as aconn:
            return await app.sync_schedules_async(aconn)

    assert asyncio.run(go()) == []
    assert [s.name for s in pgq_client.schedules(conn)] == ["nightly", "probe"]


SYNCING_WORKER = """
import sys
from pgq_client import App
app = App()
@app.task(queue="ticks")
def tick(payload):
    pass
for i in range(50):
    app.periodic(every=1, name=f"tick-{i:02d}", catch_up="all")(tick)
app.sync_schedules(__import__("psycopg").connect(sys.argv[1]))
"""


def test_six_processes_syncing_at_once_create_each_schedule_once(db_url: str, conn: psycopg.Connection[Any],
                                                                 tmp_path: Path) -> None:
    script = tmp_path / "sync.py"
    script.write_text(SYNCING_WORKER)
    procs = [subprocess.Popen([sys.executable, str(script), db_url], stderr=subprocess.PIPE, text=True)
             for _ in range(6)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert conn.execute("select count(*), count(distinct name) from q_data.schedule").fetchone() == (50, 50)


def test_a_worker_syncs_at_start_up_and_fires_every_slot_once(db_url: str, conn: psycopg.Connection[Any]) -> None:
    seen: list[tuple[str, str]] = []
    app = App()

    @app.periodic(every=1, name="each-second", payload={"k": "v"}, catch_up="all")
    @app.task(queue="ticks")
    def tick(payload: dict[str, Any]) -> None:
        seen.append((payload["schedule"], payload["slot"]))

    worker = app.worker(database_url=db_url)
    worker.start()  # type: ignore[union-attr]
    try:
        deadline = time.monotonic() + 30
        while len(seen) < 4:
            assert time.monotonic() < deadline, f"only {len(seen)} fires in 30 s"
            time.sleep(0.1)
    finally:
        worker.stop()  # type: ignore[union-attr]
        assert worker.join(20)  # type: ignore[union-attr]
    slots = sorted(s for _, s in seen)
    assert len(slots) == len(set(slots)), "no slot ran twice"
    stamps = [int(__import__("datetime").datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()) for s in slots]
    assert stamps == list(range(stamps[0], stamps[0] + len(stamps))), "consecutive seconds, none missed"
    assert conn.execute("select count(*) from q_data.schedule where name = 'each-second'").fetchone()[0] == 1


def test_pgq_schedule_commands_add_list_pause_resume_remove(db_url: str) -> None:
    done = pgq(db_url, "schedule", "add", "nightly", "--queue", "maintenance", "--cron", "0 3 * * *",
               "--tz", "Europe/Berlin", "--payload", '{"days": 30}')
    assert done.returncode == 0, done.stderr
    assert "03:00:00+01:00" in done.stdout, "the next fire time is shown in the schedule's zone"
    assert pgq(db_url, "schedule", "add", "tick", "-q", "metrics", "--every", "30s").returncode == 0
    listing = pgq(db_url, "schedule", "list")
    assert listing.returncode == 0, listing.stderr
    for text in ("nightly", "0 3 * * *", "Europe/Berlin", "tick", "every 30.0s", "next fire", "latest"):
        assert text in listing.stdout, (text, listing.stdout)
    assert "paused" in pgq(db_url, "schedule", "pause", "tick").stdout
    assert "paused" in pgq(db_url, "schedule", "list").stdout
    assert "resumed; next fire" in pgq(db_url, "schedule", "resume", "tick").stdout
    assert pgq(db_url, "schedule", "remove", "tick").returncode == 0
    assert "tick" not in pgq(db_url, "schedule", "list").stdout
    for args, code, text in (
        (("schedule", "remove", "tick"), 1, "no schedule named 'tick'"),
        (("schedule", "pause", "nope"), 1, "no schedule named 'nope'"),
        (("schedule", "add", "x", "-q", "q", "--cron", "61 * * * *"), 1, 'minute field "61"'),
        (("schedule", "add", "x", "-q", "q"), 2, "exactly one of --cron and --every"),
        (("schedule", "add", "x", "-q", "q", "--every", "soon"), 2, "not an interval"),
        (("schedule", "add", "x", "-q", "q", "--every", "5s", "--catch-up", "some"), 2, "latest, all, none"),
        (("schedule", "add", "x", "-q", "q", "--every", "5s", "--tz", "Mars/Base"), 1, "unknown time zone"),
    ):
        done = pgq(db_url, *args)
        assert done.returncode == code and text in done.stderr, (args, done.returncode, done.stderr)
        no_traceback(done)


def test_the_readme_schedules_example_runs_as_written(conn: psycopg.Connection[Any]) -> None:
    import re
    import types

    readme = (ROOT / "docs" / "manual" / "schedules.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if b.startswith("# periodic_app.py"))
    module = types.ModuleType("periodic_app")
    exec(compile(block, "README periodic_app.py", "exec"), module.__dict__)  # noqa: S102 - the README's own code
    app = module.app
    app.sync_schedules(conn)
    rows = {s.name: s for s in pgq_client.schedules(conn)}
    assert sorted(rows) == ["cleanup-probe", "nightly-cleanup"]
    assert rows["nightly-cleanup"].timezone == "Europe/Berlin" and rows["cleanup-probe"].catch_up == "none"
    sql_block = next(b for b in re.findall(r"```sql\n(.*?)```", readme, re.S) if "q.schedule('nightly-cleanup'" in b)
    for statement in [s for s in re.sub(r"--[^\n]*", "", sql_block).split(";") if s.strip()]:
        conn.execute(statement)  # the psql example runs too (it replaces the README's Python schedule)
    assert [s.name for s in pgq_client.schedules(conn)] == ["cleanup-probe", "nightly-cleanup"]


@pytest.fixture
def worker_role(db_url: str) -> Any:
    """A login role with pgq_worker only (cluster-wide: a unique name, dropped afterwards)."""
    import uuid

    name = f"pgq_t_sched_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f'create role "{name}" login in role pgq_worker')
    yield name
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f'drop role if exists "{name}"')


def test_a_worker_without_pgq_admin_stops_saying_how_to_sync_schedules_instead(db_url: str, worker_role: str,
                                                                              conn: psycopg.Connection[Any]) -> None:
    from pgq_client import StartupError
    from psycopg.conninfo import make_conninfo

    url = make_conninfo(db_url, user=worker_role)
    app, _ = make_app()
    with pytest.raises(StartupError, match="needs pgq_admin .*schedules_at_startup=False"):
        app.worker(database_url=url).run(install_signal_handlers=False)  # type: ignore[call-arg]
    assert pgq_client.schedules(conn) == [], "nothing was written"
    # The least-privilege way: a deploy step with pgq_admin syncs, the workers only work.
    app.sync_schedules(conn)
    quiet, _ = make_app(schedules_at_startup=False)
    worker = quiet.worker(database_url=url)
    worker.start()  # type: ignore[union-attr]
    try:
        deadline = time.monotonic() + 20
        while not conn.execute("select count(*) from pg_stat_activity where usename = %s"
                               " and application_name like 'pgq-listener%%'", (worker_role,)).fetchone()[0]:
            assert time.monotonic() < deadline, "the pgq_worker-only worker did not start"
            time.sleep(0.1)
    finally:
        worker.stop()  # type: ignore[union-attr]
        assert worker.join(20)  # type: ignore[union-attr]
    assert sorted(s.name for s in pgq_client.schedules(conn)) == ["nightly", "probe"]
