"""App settings reach every task: one precedence rule (worker arguments > @app.task > App > default),
proved on a running `pgq worker module:app` process observed from outside.

What is observed, never what the worker says of itself:
* handlers running at once: each run logs start/end in settings_runs on a connection of its own;
* claim sizes and leases: q.jobs, sampled while the jobs run. One claim gives all its jobs one
  lease_until (the claim's clock + lease), so the jobs seen with one lease_until are one claim,
  and lease_until minus the first start of those jobs is (at most) the lease;
* the pool: the worker's connections in pg_stat_activity, by application_name.
"""

from __future__ import annotations

import signal
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from worker_support import scalar, wait_for

JOB_MS = 300


@dataclass
class Observed:
    """What a sampler saw of one worker run (q.jobs and pg_stat_activity every ~20 ms)."""

    claims: dict[tuple[str, datetime], set[int]] = field(default_factory=lambda: defaultdict(set))
    pool: int = 0
    listeners: int = 0


class Sampler:
    def __init__(self, url: str) -> None:
        self.url = url
        self.seen = Observed()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Observed:
        self._thread.start()
        return self.seen

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        dbname = conninfo_to_dict(self.url)["dbname"]
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self._stop.wait(0.02):
                for job_id, queue, lease_until in conn.execute(
                        "select id, queue, lease_until from q.jobs(state => 'running', max_rows => 10000)"):
                    self.seen.claims[(queue, lease_until)].add(job_id)
                pool, listeners = conn.execute(
                    "select count(*) filter (where application_name like 'pgq-worker:%%'),"
                    "       count(*) filter (where application_name like 'pgq-listener:%%')"
                    "  from pg_stat_activity where datname = %s", (dbname,)).fetchone()
                self.seen.pool = max(self.seen.pool, pool)
                self.seen.listeners = max(self.seen.listeners, listeners)


def most_at_once(url: str, queue: str) -> int:
    """From the handlers' own log: the most runs of a queue whose [start, end] overlapped."""
    return scalar(url, """
        with runs as (select s.job_id, s.at as t0, e.at as t1 from settings_runs s
                        join settings_runs e on e.job_id = s.job_id and e.phase = 'end'
                       where s.phase = 'start' and s.queue = %s)
        select coalesce(max((select count(*) from runs b where b.t0 <= a.t0 and b.t1 > a.t0)), 0) from runs a""",
                  (queue,))


def claim_sizes(seen: Observed, queue: str) -> list[int]:
    return sorted(len(ids) for (q, _), ids in seen.claims.items() if q == queue)


def leases(url: str, seen: Observed, queue: str) -> list[float]:
    """Per claim: lease_until minus the first start of its jobs (the claim came before, so <= the lease)."""
    out = []
    with psycopg.connect(url, autocommit=True) as conn:
        for (q, lease_until), ids in seen.claims.items():
            if q != queue:
                continue
            first = conn.execute("select min(at) from settings_runs where phase = 'start' and job_id = any(%s)",
                                 (list(ids),)).fetchone()[0]
            if first is not None:
                out.append((lease_until - first).total_seconds())
    return out


def run_app(url: str, spawn: Callable[..., Any], *flags: str, inherits: int = 16, own: int = 6) -> Observed:
    from settings_test_app import RUNS_TABLE
    from settings_test_app import inherits as inherits_task
    from settings_test_app import own as own_task

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(RUNS_TABLE)
        inherits_task.enqueue_many(conn, [{"n": i, "ms": JOB_MS} for i in range(inherits)])
        own_task.enqueue_many(conn, [{"n": i, "ms": JOB_MS} for i in range(own)])
    with Sampler(url) as seen:
        worker = spawn(url, *flags, handler="settings_test_app:app")
        wait_for(lambda: scalar(url, "select count(*) from settings_runs where phase = 'end'") == inherits + own,
                 90, "every job of both tasks")
        worker.signal(signal.SIGTERM)
        assert worker.wait(20) == 0, worker.output()
    seen.output = worker.output()  # type: ignore[attr-defined]
    return seen


def test_app_settings_reach_every_task_of_a_pgq_worker_process_unless_the_task_sets_its_own(
        db_url: str, spawn: Callable[..., Any]) -> None:
    """App(concurrency=4, batch_size=3, lease=42): `inherits` runs 4 at once in claims of at most 3
    with a 42 s lease; `own` (concurrency=2, batch_size=1, lease=20) keeps its own. The pool: one
    connection per claim loop (ceil(4/3) + ceil(2/1) = 4) and one for heartbeats, plus the listener."""
    seen = run_app(db_url, spawn)
    out = seen.output  # type: ignore[attr-defined]
    assert most_at_once(db_url, "inherits") == 4, out
    assert most_at_once(db_url, "own") == 2, out
    assert max(claim_sizes(seen, "inherits")) == 3, claim_sizes(seen, "inherits")
    assert claim_sizes(seen, "own") == [1] * 6, claim_sizes(seen, "own")
    for lease in leases(db_url, seen, "inherits"):
        assert 40 <= lease <= 42, lease
    for lease in leases(db_url, seen, "own"):
        assert 18 <= lease <= 20, lease
    assert (seen.pool, seen.listeners) == (4 + 1, 1), out
    assert 'tasks="inherits:concurrency=4,batch_size=3,lease=42s own:concurrency=2,batch_size=1,lease=20s"' in out
    assert "pool=5..11" in out, "claim loops + 1 at start, up to one more per handler slot (4 + 2)"


def test_command_line_flags_win_over_the_tasks_and_the_app(db_url: str, spawn: Callable[..., Any]) -> None:
    """--concurrency 3 --batch-size 2 --lease 30 reach both tasks, `own`'s decorator included."""
    seen = run_app(db_url, spawn, "--concurrency", "3", "--batch-size", "2", "--lease", "30", inherits=12, own=12)
    out = seen.output  # type: ignore[attr-defined]
    for queue in ("inherits", "own"):
        assert most_at_once(db_url, queue) == 3, (queue, out)
        assert max(claim_sizes(seen, queue)) == 2, (queue, claim_sizes(seen, queue))
        for lease in leases(db_url, seen, queue):
            assert 28 <= lease <= 30, (queue, lease)
    assert (seen.pool, seen.listeners) == (2 + 2 + 1, 1), out  # ceil(3/2) claim loops per task, + heartbeats


def test_pgq_worker_and_run_worker_build_the_same_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command and app.worker() resolve the same settings, with and without flags."""
    from pgq_client.cli._commands import app as command
    from pgq_client.worker import Worker
    from settings_test_app import app
    from typer.testing import CliRunner

    built: list[Worker] = []
    monkeypatch.setattr(Worker, "run", lambda self, *a, **k: built.append(self))

    def summary(worker: Any) -> tuple[Any, ...]:
        o = worker.options
        return ([lane.describe() for lane in worker.lanes], o.concurrency, o.loops, o.pool_size,
                o.poll_interval, o.listen, o.grace_period)

    for flags, keywords in (([], {}), (["--concurrency", "3", "--lease", "30", "--no-listen"],
                                       {"concurrency": 3, "lease": 30, "listen": False})):
        done = CliRunner().invoke(command, ["--database-url", "dbname=x", "worker", "settings_test_app:app", *flags])
        assert done.exit_code == 0, done.output
        assert summary(built.pop()) == summary(app.worker(database_url="dbname=x", **keywords))
    default = summary(app.worker(database_url="dbname=x"))
    assert default[:4] == (["inherits:concurrency=4,batch_size=3,lease=42s",
                            "own:concurrency=2,batch_size=1,lease=20s"], 6, 4, 11)
    assert default[4] == 0.2, "the App's poll_interval, not the command's default"
