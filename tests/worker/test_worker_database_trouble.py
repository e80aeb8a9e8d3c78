"""The database goes away and comes back: workers wait it out and lose no job.

Exactly-once-terminal accounting: every enqueued job ends as exactly one
'completed' row in q_data.job_history (the queue keeps completed jobs), nothing is
left in q_data.job, nothing is dead. Handlers may run more than once (a claim lost
to a crash is run again): that is the at-least-once promise.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from pgq_client import Worker
from psycopg.conninfo import conninfo_to_dict
from worker_support import prepare, ready, wait_for

# The session fixtures private_cluster (.pg-worker, port 54341, stopped and started here) and pgbouncer
# (.pg-bouncer-worker, port 54342) exist once per checkout: every test using them on one xdist worker.
pytestmark = pytest.mark.xdist_group("private_cluster")


def fill(url: str, count: int, payload: dict[str, Any]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "select q.enqueue_many('w', (select jsonb_agg(%s::jsonb || jsonb_build_object('n', i))"
            " from generate_series(1, %s) i))",
            (psycopg.types.json.Jsonb(payload), count),
        )


def accounting(url: str) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "select (select count(*) from q_data.job),"
            " (select count(*) from q_data.job_history where state = 'completed'),"
            " (select count(distinct id) from q_data.job_history where state = 'completed'),"
            " (select count(*) from q_data.job_history where state <> 'completed')"
        ).fetchone()
    return dict(zip(("left", "completed", "distinct_completed", "dead_or_cancelled"), row, strict=True))


def completed(url: str) -> int:
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=2) as conn:
            return conn.execute("select count(*) from q_data.job_history where state = 'completed'").fetchone()[0]
    except psycopg.OperationalError:
        return -1


def test_workers_resume_after_a_postgres_restart_mid_load_and_lose_no_job(
    private_db: str, private_cluster: Any, spawn: Callable[..., Any]
) -> None:
    total = 3000
    prepare(private_db)
    fill(private_db, total, {"sleep": 0.002})
    workers = [spawn(private_db, "-q", "w", "--concurrency", "4") for _ in range(2)]
    ready(private_db, 2)
    wait_for(lambda: completed(private_db) >= total // 4, 60, "a quarter of the jobs to complete")
    private_cluster.restart()
    back = time.monotonic()
    before = completed(private_db)
    wait_for(lambda: completed(private_db) > before, 15, "work to resume after the restart", step=0.1)
    resumed = time.monotonic() - back
    wait_for(lambda: completed(private_db) >= total, 120, "every job to complete", step=0.2)
    print(f"resumed {resumed:.2f} s after PostgreSQL came back")
    assert resumed < 10.0
    assert accounting(private_db) == {"left": 0, "completed": total, "distinct_completed": total,
                                      "dead_or_cancelled": 0}
    for w in workers:
        assert w.proc.poll() is None, f"a worker exited:\n{w.output()}"
    log = "".join(w.output() for w in workers)
    assert "db_unavailable" in log and "db_reconnected" in log


def test_worker_survives_its_connections_being_terminated_mid_load(db_url: str) -> None:
    total = 2000
    prepare(db_url)
    fill(db_url, total, {"sleep": 0.001})

    def handler(payload: dict[str, Any]) -> None:
        time.sleep(payload["sleep"])

    worker = Worker(handler, "w", database_url=db_url, concurrency=4).start()
    try:
        wait_for(lambda: completed(db_url) >= total // 4, 60, "a quarter of the jobs to complete")
        dbname = conninfo_to_dict(db_url)["dbname"]
        with psycopg.connect(db_url, autocommit=True) as conn:
            killed = conn.execute(
                "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                " where datname = %s and application_name like 'pgq-%%'",
                (dbname,),
            ).fetchone()[0]
        assert killed >= 2
        wait_for(lambda: completed(db_url) >= total, 60, "every job to complete", step=0.1)
    finally:
        worker.stop()
        assert worker.join(15)
    assert accounting(db_url) == {"left": 0, "completed": total, "distinct_completed": total, "dead_or_cancelled": 0}


def test_worker_behind_pgbouncer_in_transaction_mode_accounts_for_every_job_once(
    db_url: str, pgbouncer: Callable[[str], str]
) -> None:
    total = 1000
    prepare(db_url)
    fill(db_url, total, {})
    bounced = pgbouncer(db_url)
    seen: list[int] = []

    def handler(payload: dict[str, Any]) -> None:
        seen.append(payload["n"])

    worker = Worker(handler, "w", database_url=bounced, pgbouncer=True, concurrency=8, poll_interval=0.2).start()
    try:
        wait_for(lambda: completed(db_url) >= total, 60, "every job to complete through PgBouncer", step=0.1)
        # Wake-ups on demand: lease-only claims never say they wait (no LISTEN through transaction
        # pooling), so enqueues send no NOTIFY for them; an idle one finds new work by its poll.
        with psycopg.connect(db_url, autocommit=True) as conn:
            assert conn.execute("select count(*) from q_data.waiter").fetchone()[0] == 0
            conn.execute("select q.enqueue('w', '{\"n\": %s}')" % (total + 1))
        wait_for(lambda: completed(db_url) > total, 0.2 + 0.5, "an idle PgBouncer worker to poll the new job")
        total += 1
    finally:
        worker.stop()
        assert worker.join(15)
    assert accounting(db_url) == {"left": 0, "completed": total, "distinct_completed": total, "dead_or_cancelled": 0}
    assert sorted(seen) == list(range(1, total + 1))
    with psycopg.connect(db_url, autocommit=True) as conn:
        owners = conn.execute("select count(*) from q_data.job_history where errors is not null").fetchone()[0]
    assert owners == 0


def test_pgq_worker_command_in_pgbouncer_mode_drains_a_batch(
    db_url: str, pgbouncer: Callable[[str], str], spawn: Callable[..., Any]
) -> None:
    total = 300
    prepare(db_url)
    fill(db_url, total, {})
    worker = spawn(pgbouncer(db_url), "-q", "w", "--pgbouncer", "--poll-interval", "0.2")
    wait_for(lambda: completed(db_url) >= total, 60, "every job to complete through PgBouncer", step=0.1)
    assert accounting(db_url) == {"left": 0, "completed": total, "distinct_completed": total, "dead_or_cancelled": 0}
    assert worker.proc.poll() is None
