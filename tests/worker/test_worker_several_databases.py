"""One worker process serves queues in two databases on two PostgreSQL clusters.

The proof (design.md#failover-and-several-databases): one ``pgq worker`` process, given
``--database-url`` twice, drains a queue in each database; one cluster is
restarted (``pg_ctl restart -m fast``) while the other keeps being drained,
and the same process (never restarted) recovers the restarted one. Nothing
is lost: each database's own run log (written by the handler in that
database) and pgq's books (job_history) account for every job enqueued there.

The clusters: the test server (DATABASE_URL) and a cluster of this test's own
(``.pg-multidb``, on a socket in the checkout, port $PGQ_MULTIDB_PORT or
54343), the one that is restarted: the shared server is never restarted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from several_databases_app import RUNS
from worker_support import PGQ, ROOT, as_postgres, private_dir, wait_for

# A module-scoped cluster on a fixed directory and port: all of this module's tests on one xdist worker.
pytestmark = pytest.mark.xdist_group("multidb_cluster")

PORT = int(os.environ.get("PGQ_MULTIDB_PORT", "54343"))


class Cluster:
    """A PostgreSQL cluster of this module's own (scripts/embedded-pg with its own root and port)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {**os.environ, "PGQ_PG_ROOT": str(root), "PGQ_PG_PORT": str(PORT)}
        self.env.pop("DATABASE_URL", None)

    def run(self, action: str) -> str:
        done = subprocess.run([str(ROOT / "scripts" / "embedded-pg"), action], env=self.env, check=True,
                              capture_output=True, text=True)
        return done.stdout.strip()

    @property
    def data(self) -> Path:
        # embedded-pg keeps its data under the root it was given (or a /var/tmp twin it prints in url)
        found = self.run("url")
        sock = dict(p.split("=", 1) for p in found.split("?", 1)[1].split("&"))["host"]
        return Path(sock).parent / "data"

    def restart_fast(self) -> None:
        """``pg_ctl restart -m fast`` as postgres: every session is ended, the server comes back."""
        bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))[-1]
        subprocess.run([*as_postgres(), str(bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast",
                        "-l", str(self.data.parent / "server.log"), "-w", "-t", "60", "restart"],
                       check=True, capture_output=True, cwd="/")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    own = Cluster(private_dir("multidb"))
    own.run("start")
    try:
        yield own
    finally:
        own.run("stop")


@pytest.fixture
def other_db(cluster: Cluster) -> Iterator[str]:
    """A fresh database on this module's cluster, installed with ``pgq migrate`` (as users do)."""
    name = f"pgq_m_{os.getpid()}_{int(time.time() * 1000) % 10**8}"
    admin = make_conninfo(cluster.run("url"), dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'create database "{name}"')
    url = make_conninfo(cluster.run("url"), dbname=name)
    subprocess.run([PGQ, "--database-url", url, "migrate"], check=True, capture_output=True)
    yield url
    cluster.run("start")  # in case the test left it stopped
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


def fill(url: str, queue: str, count: int, sleep: float) -> None:
    """The run log table, the queue (keeping completed jobs, for the books) and count jobs n = 1..count."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(RUNS)
        conn.execute("select q.configure(%s, keep_completed => true)", (queue,))
        conn.execute("select q.enqueue_many(%s, (select jsonb_agg(jsonb_build_object('n', i, 'sleep', %s::float8))"
                     " from generate_series(1, %s) i))", (queue, sleep, count))


def books(url: str, queue: str) -> dict[str, int]:
    """What this database says about queue: jobs left, completed (rows and distinct ids) and the run
    log's distinct n (the handler's own, independent count)."""
    with psycopg.connect(url, autocommit=True, connect_timeout=2) as conn:
        row = conn.execute(
            "select (select count(*) from q_data.job j join q_data.queue q on q.id = j.queue_id where q.name = %s),"
            " (select count(distinct id) from q.jobs(queue => %s, state => 'completed', max_rows => 10000)),"
            " (select count(distinct n) from several_runs where queue = %s)",
            (queue, queue, queue)).fetchone()
    return dict(zip(("left", "completed", "ran"), row, strict=True))


def ran(url: str, queue: str) -> int:
    try:
        return int(books(url, queue)["ran"])
    except psycopg.OperationalError:
        return -1


def ran_between(url: str, queue: str, start: float, end: float) -> int:
    """Runs logged in this database between two moments of the test's clock (the server shares it)."""
    with psycopg.connect(url, autocommit=True) as conn:
        return int(conn.execute(
            "select count(*) from several_runs where queue = %s and at between to_timestamp(%s) and to_timestamp(%s)",
            (queue, start, end)).fetchone()[0])


@pytest.fixture
def spawn_worker(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        log = (tmp_path / f"worker-{len(started)}.log").open("wb")
        base = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        base["PYTHONPATH"] = str(Path(__file__).parent) + os.pathsep + base.get("PYTHONPATH", "")
        base["PYTHONUNBUFFERED"] = "1"
        started.append(subprocess.Popen([PGQ, "worker", *args], env={**base, **(env or {})}, stdout=log,
                                        stderr=subprocess.STDOUT, cwd=Path(__file__).parent))
        return started[-1]

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)


def output(tmp_path: Path, i: int = 0) -> str:
    return (tmp_path / f"worker-{i}.log").read_text(errors="replace")


def test_one_worker_process_drains_two_clusters_and_survives_one_restarting(
        db_url: str, other_db: str, cluster: Cluster, spawn_worker: Callable[..., Any], tmp_path: Path) -> None:
    total = 600
    fill(db_url, "w", total, 0.01)
    fill(other_db, "w", total, 0.01)
    worker = spawn_worker("several_databases_app:record", "-q", "w", "--concurrency", "2", "--batch-size", "2",
                          "--database-url", db_url, "--database-url", other_db)
    # Both databases are being drained by the one process.
    wait_for(lambda: ran(db_url, "w") >= 20 and ran(other_db, "w") >= 20, 60, "runs in both databases")
    assert ran(other_db, "w") < total, "the restarted database must still have work when it restarts"

    went_down = time.time()
    cluster.restart_fast()
    # The same process (never restarted) picks the restarted database up again ...
    before = ran(other_db, "w")
    wait_for(lambda: ran(other_db, "w") > before, 30, "runs in the restarted database after the restart")
    came_back = time.time()
    assert worker.poll() is None, output(tmp_path)
    # ... and the other database kept being served while this one was down, restarting and reconnecting.
    kept = ran_between(db_url, "w", went_down, came_back)

    wait_for(lambda: ran(db_url, "w") == total and ran(other_db, "w") == total, 120, "both databases drained")
    for url in (db_url, other_db):
        wait_for(lambda url=url: books(url, "w")["left"] == 0, 30, "no job left")
        assert books(url, "w") == {"left": 0, "completed": total, "ran": total}
    assert kept > 0, f"nothing ran in the database that stayed up during the restart ({came_back - went_down:.1f} s)"

    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 0, output(tmp_path)
    log = output(tmp_path)
    assert log.count("worker_started") == 2 and log.count("worker_stopped") == 2, log


def test_a_database_down_at_start_is_waited_for_while_the_other_is_served(
        db_url: str, other_db: str, cluster: Cluster, spawn_worker: Callable[..., Any], tmp_path: Path) -> None:
    fill(db_url, "w", 30, 0)
    fill(other_db, "w", 30, 0)
    cluster.run("stop")
    try:
        worker = spawn_worker("several_databases_app:record", "-q", "w", "--database-url", db_url,
                              "--database-url", other_db)
        wait_for(lambda: ran(db_url, "w") == 30, 60, f"the database that is up drained\n{output(tmp_path)}")
        assert worker.poll() is None, output(tmp_path)
    finally:
        cluster.run("start")
    wait_for(lambda: ran(other_db, "w") == 30, 60, f"the late database drained\n{output(tmp_path)}")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 0, output(tmp_path)


def test_an_app_with_a_queue_to_database_map_serves_each_queue_in_its_own_database(
        db_url: str, other_db: str, spawn_worker: Callable[..., Any], tmp_path: Path) -> None:
    fill(db_url, "orders", 30, 0)
    fill(other_db, "invoices", 20, 0)
    # The App's own databases= (a queue -> URL map) says where each queue is; no --database-url given.
    worker = spawn_worker("several_databases_app:app", env={"ORDERS_URL": db_url, "INVOICES_URL": other_db})
    wait_for(lambda: ran(db_url, "orders") == 30 and ran(other_db, "invoices") == 20, 60,
             f"both queues drained\n{output(tmp_path)}")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 0, output(tmp_path)
    with psycopg.connect(db_url, autocommit=True) as conn:
        # orders' schedule was written where orders lives; no invoices queue came into being here
        assert conn.execute("select name, queue from q.schedules()").fetchall() == [("hourly-orders", "orders")]
        assert conn.execute("select count(*) from several_runs where queue <> 'orders'").fetchone() == (0,)
    with psycopg.connect(other_db, autocommit=True) as conn:
        assert conn.execute("select count(*) from q.schedules()").fetchone() == (0,)
        assert conn.execute("select count(*) from several_runs where queue <> 'invoices'").fetchone() == (0,)


def test_pgq_stats_shows_every_database_given_and_says_which_one_is_down(
        db_url: str, other_db: str, cluster: Cluster) -> None:
    fill(db_url, "alpha", 3, 0)
    fill(other_db, "beta", 5, 0)
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    both = subprocess.run([PGQ, "stats", "--once", "--database-url", db_url, "--database-url", other_db],
                          env=env, capture_output=True, text=True, timeout=60)
    assert both.returncode == 0, both.stderr
    first, second = both.stdout.split("pgq queues in ")[1:]
    assert first.startswith(db_name(db_url)) and "alpha" in first and "beta" not in first, both.stdout
    assert second.startswith(db_name(other_db)) and "beta" in second and "alpha" not in second, both.stdout
    one = subprocess.run([PGQ, "jobs", "--database-url", db_url, "--database-url", other_db],
                         env=env, capture_output=True, text=True, timeout=60)
    assert one.returncode == 2 and "works on one database" in one.stderr, one.stderr

    cluster.run("stop")
    try:
        down = subprocess.run([PGQ, "stats", "--once", "--database-url", db_url, "--database-url", other_db],
                              env=env, capture_output=True, text=True, timeout=60)
    finally:
        cluster.run("start")
    assert down.returncode == 1, down.stdout + down.stderr
    assert "alpha" in down.stdout and "not reachable" in down.stdout, down.stdout


def db_name(url: str) -> str:
    from psycopg.conninfo import conninfo_to_dict

    return str(conninfo_to_dict(url)["dbname"])


@pytest.fixture
def sibling_db(pgq_template: str, db_url: str) -> Iterator[str]:
    """A second pgq database on the test server (a copy of the pgq template, as db_url is)."""
    admin = make_conninfo(db_url, dbname="postgres")
    name = f"{pgq_template}_sib_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'create database "{name}" template "{pgq_template}"')
    yield make_conninfo(db_url, dbname=name)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


def test_an_async_app_drains_a_list_of_databases_with_one_async_worker_group(db_url: str, sibling_db: str) -> None:
    import asyncio

    import pgq_client
    from pgq_client.worker import AsyncWorkerGroup

    ran_in: dict[str, list[int]] = {}
    app = pgq_client.App(concurrency=2, name="async-group")

    @app.task(queue="w")
    async def handle(payload: dict[str, Any], job: pgq_client.JobContext) -> None:
        async with job.connection() as conn:  # the pool of the job's own database
            name = (await (await conn.execute("select current_database()")).fetchone())[0]
        ran_in.setdefault(name, []).append(payload["n"])

    for url in (db_url, sibling_db):
        fill(url, "w", 10, 0)

    async def main() -> dict[str, int]:
        group = app.worker(databases=[db_url, sibling_db])
        assert isinstance(group, AsyncWorkerGroup)
        group.start()
        deadline = time.monotonic() + 30
        while group.completed < 20 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        group.stop()
        assert await group.join(15)
        return group.completed_by_database()

    done = asyncio.run(main())
    assert done == {db_name(db_url): 10, db_name(sibling_db): 10}
    assert {k: sorted(v) for k, v in ran_in.items()} == {db_name(u): list(range(1, 11)) for u in (db_url, sibling_db)}


def test_a_database_without_pgq_stops_the_whole_group_and_is_named(db_url: str,
                                                                   new_database: Callable[[], str]) -> None:
    from pgq_client import StartupError, Worker
    from pgq_client.worker import WorkerGroup

    empty = new_database()
    group = WorkerGroup({"good": Worker(print, "w", database_url=db_url), "empty": Worker(print, "w",
                                                                                          database_url=empty)})
    started = time.monotonic()
    with pytest.raises(StartupError, match="database empty: pgq is not installed"):
        group.run(install_signal_handlers=False)
    assert time.monotonic() - started < 20
    assert all(not w.pool or w.pool.closed for w in group.workers.values())  # the good one was stopped too
