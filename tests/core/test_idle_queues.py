"""Queue names that cost nothing when idle (design.md#queue-names-cost-nothing-when-idle), seen from real sessions.

* 50,000 names a producer once used and that are empty now: q.stats() answers
  with the active queues only, and every call returns at most max_queues rows
  (0007 returned all 50,000, ~0.1 ms each).
* q.reap deletes idle queues, but never one that an enqueue still open in
  another session points at: that job must commit into a queue that exists
  (0007's q.delete_queue lost exactly such a job). Held by real sessions,
  which a rolled-back pgTAP transaction cannot show.
* q.health shows a pgq_monitor login another role's session only as a pid and
  a severity, as pg_stat_activity would.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pgq_client
import psycopg
import pytest

Connect = Callable[..., psycopg.Connection[Any]]


def make_idle(conn: psycopg.Connection[Any], *names: str) -> None:
    """Queues with those names, empty and made two hours ago (the reaper waits an hour)."""
    for name in names:
        conn.execute("select q.enqueue(%s, '{}')", (name,))
        conn.execute("select q.purge(%s)", (name,))
    conn.execute("update q_data.queue set created_at = now() - interval '2 hours' where name = any(%s)", (list(names),))


def queue_names(conn: psycopg.Connection[Any]) -> set[str]:
    return {r[0] for r in conn.execute("select name from q_data.queue")}


def dangling_jobs(conn: psycopg.Connection[Any]) -> int:
    return conn.execute(
        "select count(*) from q_data.job j where not exists (select from q_data.queue qq where qq.id = j.queue_id)"
    ).fetchone()[0]  # type: ignore[index]


def test_50000_idle_queue_names_leave_q_stats_small_and_paged(conn: psycopg.Connection[Any]) -> None:
    conn.execute("insert into q_data.queue (name) select 'idle-' || g from generate_series(1, 50000) g")
    for n in range(5):
        pgq_client.enqueue(conn, f"busy-{n}", {"n": n})
    conn.execute("analyze q_data.queue")

    started = time.perf_counter()
    rows = conn.execute("select queue from q.stats()").fetchall()
    took = time.perf_counter() - started
    print(f"\nq.stats() at 50,005 names (5 active): {len(rows)} rows in {took * 1000:.1f} ms")
    assert [r[0] for r in rows] == [f"busy-{n}" for n in range(5)]

    started = time.perf_counter()
    page = conn.execute("select queue from q.stats(include_idle => true)").fetchall()
    took = time.perf_counter() - started
    print(f"q.stats(include_idle => true): {len(page)} rows in {took * 1000:.1f} ms")
    assert len(page) == 1000, "a call returns at most max_queues (default 1000) queues"
    after = page[-1][0]
    (nxt,) = conn.execute("select queue from q.stats(include_idle => true, max_queues => 1, after => %s)",
                          (after,)).fetchall()
    assert nxt[0] > after


def test_reap_deletes_an_idle_queue_but_not_one_an_open_enqueue_points_at(conn: psycopg.Connection[Any],
                                                                          connect: Connect) -> None:
    make_idle(conn, "idle", "victim")
    producer = connect(autocommit=False)
    job_id = pgq_client.enqueue(producer, "victim", {"n": 1})  # not committed yet

    reaper = connect()
    reaper.execute("select q.reap()")
    assert "idle" not in queue_names(conn), "an idle queue (empty, default settings, 2 hours old) is deleted"
    assert "victim" in queue_names(conn), "a queue an open enqueue points at stays"

    producer.commit()
    assert dangling_jobs(conn) == 0
    (claimed,) = pgq_client.claim(conn, "victim")
    assert claimed.id == job_id

    # A name deleted as idle is made again by the next enqueue.
    pgq_client.enqueue(conn, "idle", {"n": 2})
    assert "idle" in queue_names(conn) and dangling_jobs(conn) == 0


def test_an_enqueue_racing_a_reap_that_deletes_its_queue_waits_and_makes_it_again(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    make_idle(conn, "victim")
    reaper = connect(autocommit=False)
    reaper.execute("select q.reap()")  # deleted the queue, not committed yet
    assert "victim" not in {r[0] for r in reaper.execute("select name from q_data.queue")}

    done: list[int] = []
    producer = connect()

    def enqueue() -> None:
        done.append(pgq_client.enqueue(producer, "victim", {"n": 1}))

    thread = threading.Thread(target=enqueue)
    thread.start()
    time.sleep(0.5)
    assert not done, "the enqueue waits for the reaper's transaction"
    reaper.commit()
    thread.join(10)
    assert done and dangling_jobs(conn) == 0
    assert conn.execute("select count(*) from q_data.queue where name = 'victim'").fetchone() == (1,)


def test_a_repeatable_read_enqueue_into_a_queue_deleted_after_its_snapshot_fails_with_40001(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    make_idle(conn, "victim")
    producer = connect(autocommit=False)
    producer.execute("set transaction isolation level repeatable read")
    producer.execute("select 1")  # the snapshot is taken: the queue row is in it
    connect().execute("select q.reap()")
    assert "victim" not in queue_names(conn)
    with pytest.raises(psycopg.errors.SerializationFailure):
        pgq_client.enqueue(producer, "victim", {"n": 1})
    producer.rollback()
    assert dangling_jobs(conn) == 0


def test_a_role_squatting_the_advisory_locks_slows_nothing_down_to_a_wait_and_only_keeps_names(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    make_idle(conn, "kept", "victim")
    squatter = connect()  # any login role may take advisory locks; the class is public
    squatter.execute("select pg_advisory_lock(1885827329, b) from generate_series(0, 15) b")
    producer = connect(autocommit=False)
    producer.execute("set statement_timeout = '2s'")
    pgq_client.enqueue(producer, "victim", {"n": 1})  # does not wait: locks the row instead
    connect().execute("select q.reap()")
    producer.commit()
    assert {"kept", "victim"} <= queue_names(conn), "with every bucket taken the reaper deletes nothing"
    assert dangling_jobs(conn) == 0
    squatter.execute("select pg_advisory_unlock_all()")
    connect().execute("select q.reap()")
    assert "kept" not in queue_names(conn)


@pytest.fixture
def monitor_url(db_url: str) -> Iterator[str]:
    """A login role with pgq_monitor and nothing else."""
    name = f"pgq_mon_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"create role {name} login in role pgq_monitor")
    yield psycopg.conninfo.make_conninfo(db_url, user=name)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"drop role {name}")


def test_health_shows_a_monitor_another_roles_session_as_a_pid_and_a_severity_only(
    connect: Connect, monitor_url: str
) -> None:
    reader = connect(autocommit=False, application_name="secret-report")
    reader.execute("set transaction isolation level repeatable read")
    reader.execute("select count(*) from pg_class")
    pid = reader.execute("select pg_backend_pid()").fetchone()[0]  # type: ignore[index]
    with psycopg.connect(monitor_url, autocommit=True) as mon:
        (row,) = [r for r in pgq_client.health(mon) if r.check_name == "xmin_horizon" and r.object == f"pid {pid}"]
        assert row.detail == {"pid": pid, "hidden": True}
        assert "secret-report" not in row.message + row.advice and "idle in transaction" not in row.message
        # The monitor's own session it may see (as in pg_stat_activity).
        own = mon.execute("select count(*) from q.stats()").fetchone()
        assert own is not None
    reader.rollback()
