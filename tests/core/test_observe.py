"""q.health, q.explain and the throughput figures seen from real sessions.

What a rolled-back pgTAP transaction cannot show: a client that leaves its
transaction open is seen by *another* session calling q.health as a role that
has pgq_admin and nothing else; statistics that only exist after commits
(dead rows, a table left large after a backlog drained); throughput counted by
real workers' round trips.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pgq_client
import psycopg
import pytest
from pgq_client import HealthCheck, Worker

Connect = Callable[..., psycopg.Connection[Any]]


@pytest.fixture
def admin_only_url(db_url: str) -> Iterator[str]:
    """A login role with pgq_admin and nothing else (no superuser, no pg_read_all_stats)."""
    name = f"pgq_ops_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"create role {name} login in role pgq_admin")
    yield psycopg.conninfo.make_conninfo(db_url, user=name)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"drop role {name}")


def _rows(conn: psycopg.Connection[Any], check: str) -> list[HealthCheck]:
    return [r for r in pgq_client.health(conn) if r.check_name == check]


def _until(probe: Callable[[], Any], seconds: float = 15.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        found = probe()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_health_names_a_client_idle_in_transaction_from_another_session(
    connect: Connect, admin_only_url: str
) -> None:
    idler = connect(autocommit=False, application_name="forgot-to-commit")
    idler_pid = idler.execute("select pg_backend_pid()").fetchone()[0]  # type: ignore[index]
    pgq_client.enqueue(idler, "work", {"n": 1})  # a write: the session now holds an xid

    with psycopg.connect(admin_only_url, autocommit=True) as ops:
        assert ops.execute("select rolsuper from pg_roles where rolname = current_user").fetchone() == (False,)
        (row,) = [r for r in _rows(ops, "xmin_horizon") if r.object == f"pid {idler_pid}"]
        assert row.detail["idle_in_transaction"] is True
        assert row.detail["application_name"] == "forgot-to-commit"
        assert row.severity == "info"  # young: warning after a minute, critical after ten
        assert f"pg_terminate_backend({idler_pid})" in row.advice
        assert "idle in transaction" in row.message

        idler.commit()
        assert _until(lambda: not [r for r in _rows(ops, "xmin_horizon") if r.object == f"pid {idler_pid}"])
        assert [r.severity for r in _rows(ops, "xmin_horizon")] == ["ok"]


def test_health_sees_a_repeatable_read_snapshot_held_without_any_write(connect: Connect, conn: Any) -> None:
    reader = connect(autocommit=False, application_name="long-report")
    reader.execute("set transaction isolation level repeatable read")
    reader.execute("select count(*) from pg_class")
    pid = reader.execute("select pg_backend_pid()").fetchone()[0]  # type: ignore[index]
    rows = [r for r in _rows(conn, "xmin_horizon") if r.object == f"pid {pid}"]
    assert len(rows) == 1 and rows[0].detail["idle_in_transaction"] is True
    reader.rollback()


def test_health_warns_about_dead_rows_autovacuum_left_and_settings_changed(conn: Any, connect: Connect) -> None:
    conn.execute("alter table q_data.job set (autovacuum_enabled = off)")
    writer = connect()
    writer.execute("insert into q_data.queue (name) values ('churn')")
    writer.execute(
        "insert into q_data.job (queue_id, payload, run_at) select (select id from q_data.queue where name = 'churn'),"
        " '{}', now() from generate_series(1, 40000)"
    )
    writer.execute("delete from q_data.job")
    writer.close()  # a backend flushes its table statistics when it exits

    def dead() -> list[HealthCheck]:
        return [r for r in _rows(conn, "vacuum") if r.object == "q_data.job" and r.severity != "ok"]

    (row,) = _until(dead)
    assert row.severity == "critical"  # 40,000 dead rows against a threshold of 1,000: 40x
    assert row.detail["dead_rows"] >= 40000
    assert "VACUUM q_data.job" in row.advice
    (settings,) = [r for r in _rows(conn, "table_settings") if r.object == "q_data.job"]
    assert settings.severity == "warning" and "autovacuum_enabled=off" in settings.message

    conn.execute("vacuum q_data.job")
    assert _until(lambda: [r.severity for r in _rows(conn, "vacuum") if r.object == "q_data.job"] == ["ok"])


@pytest.mark.serial  # live_rows <= 1 rests on when cumulative statistics are flushed: timing
def test_health_warns_about_a_table_left_large_after_a_backlog_drained(conn: Any, connect: Connect) -> None:
    conn.execute("alter table q_data.job set (autovacuum_enabled = off)")
    conn.execute("insert into q_data.queue (name) values ('backlog')")
    conn.execute(
        "insert into q_data.job (queue_id, payload, run_at) select (select id from q_data.queue where name = "
        "'backlog'),"
        " jsonb_build_object('pad', repeat('x', 200)), now() from generate_series(1, 60000)"
    )
    # The backlog drains, but for the last job: vacuum cannot cut the file short of it.
    conn.execute("delete from q_data.job where id < (select max(id) from q_data.job)")
    conn.execute("vacuum analyze q_data.job")

    def bloated() -> list[HealthCheck]:
        return [r for r in _rows(conn, "bloat") if r.object == "q_data.job" and r.severity == "warning"]

    (row,) = _until(bloated)
    assert row.detail["bytes"] > 8 * 1024 * 1024 and row.detail["live_rows"] <= 1
    assert "pg_repack" in row.advice
    (index,) = [r for r in _rows(conn, "bloat") if r.object == "q_data.job_claim_idx"]
    # 60,000 entries' worth of pages (under 8 MB: not worth a warning) for one entry left.
    assert index.detail["entries"] <= 1 and index.detail["bytes"] > 1024 * 1024


def test_explain_tells_a_gone_session_from_a_live_one(conn: Any, connect: Connect) -> None:
    worker = connect(application_name="worker-7")
    pgq_client.enqueue_many(conn, "ex", [1, 2])
    first, second = pgq_client.claim(worker, "ex", 2, owner=pgq_client.session_key(worker))
    worker_pid = worker.execute("select pg_backend_pid()").fetchone()[0]  # type: ignore[index]

    (live,) = pgq_client.explain(conn, first.id)
    assert live.code == "claimed_live"
    assert live.detail["pid"] == worker_pid and live.detail["application_name"] == "worker-7"

    worker.close()
    gone = _until(lambda: [r for r in pgq_client.explain(conn, second.id) if r.code == "claimed_gone"])
    assert gone and "the next q.reap returns it" in gone[0].message
    assert pgq_client.reap(conn) == 2
    # Both are waiting again; the first in claim order is ready, the other behind it.
    assert sorted(r.code for j in (first, second) for r in pgq_client.explain(conn, j.id)) == ["behind", "ready"]


def test_throughput_counts_what_a_real_worker_round_trip_finished(conn: Any, db_url: str) -> None:
    pgq_client.enqueue_many(conn, "tp", list(range(50)))
    seen: list[int] = []

    def handler(payload: Any) -> None:
        seen.append(payload)
        if payload % 10 == 0:
            raise ValueError("every tenth fails")

    worker = Worker(handler, "tp", database_url=db_url, concurrency=4, poll_interval=0.05).start()
    try:
        assert _until(lambda: sum(t.completed for t in pgq_client.throughput_totals(conn) if t.queue == "tp") >= 45)
    finally:
        worker.stop()
        worker.join(timeout=30)
    (total,) = [t for t in pgq_client.throughput_totals(conn) if t.queue == "tp"]
    assert (total.completed, total.failed, total.dead) == (45, 5, 0)
    # The books agree with the database: the failed ones are scheduled to retry.
    assert conn.execute("select count(*) from q_data.job where state = 's'").fetchone() == (5,)
    buckets = pgq_client.throughput(conn)
    assert sum(b.completed for b in buckets if b.queue == "tp") == 45
