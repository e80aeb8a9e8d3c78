"""The enqueue NOTIFY as a listening worker sees it: only committed waiting
jobs wake anyone, once per queue per statement, with the queue name as payload."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

Connect = Callable[..., psycopg.Connection[Any]]
QUIET = 0.5  # how long "nothing arrives" is watched for


# The queues these tests enqueue into and the listener waits for.
QUEUES = ("a", "b", "mail.outbound:eu-1")


def wait_for_jobs(connection: psycopg.Connection[Any], *queues: str) -> None:
    """Say this session waits for the queues' jobs, as a worker does: an empty claim with pgq.listening = on
    and a liveness key. An enqueue notifies only queues someone waits for (tests/core/test_notify_on_demand.py)."""
    key = connection.execute("select q.session_key()").fetchone()[0]
    connection.execute("select set_config('pgq.listening', 'on', false)")
    for queue in queues:
        connection.execute("select count(*) from q.claim(%s, 1, owner => %s)", (queue, key))


@pytest.fixture
def listener(connect: Connect) -> Iterator[psycopg.Connection[Any]]:
    connection = connect()
    connection.execute("listen pgq")
    wait_for_jobs(connection, *QUEUES)
    yield connection


def received(listener: psycopg.Connection[Any], seconds: float = QUIET) -> list[tuple[str, str]]:
    """Every notification that arrives within the given seconds, as (channel, payload)."""
    return [(n.channel, n.payload) for n in listener.notifies(timeout=seconds)]


def first_arrival(listener: psycopg.Connection[Any], seconds: float = 5.0) -> list[tuple[str, str]]:
    """Wait up to `seconds` for one notification, then collect what else comes within QUIET."""
    got = [(n.channel, n.payload) for n in listener.notifies(timeout=seconds, stop_after=1)]
    return got + received(listener)


def test_enqueue_in_a_rolled_back_transaction_leaves_no_job_and_sends_no_notification(
    conn: psycopg.Connection[Any], connect: Connect, listener: psycopg.Connection[Any]
) -> None:
    producer = connect(autocommit=False)
    job_id = producer.execute("select q.enqueue('a', '{\"x\": 1}')").fetchone()[0]
    producer.execute("select q.enqueue_many('a', %s)", (Jsonb([1, 2, 3]),))
    producer.rollback()

    assert received(listener) == []
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0
    assert conn.execute("select count(*) from q_data.job_history where id = %s", (job_id,)).fetchone()[0] == 0
    assert conn.execute("select * from q.claim('a', 10)").fetchall() == []


def test_notification_arrives_only_after_the_enqueuing_transaction_commits(
    connect: Connect, listener: psycopg.Connection[Any]
) -> None:
    producer = connect(autocommit=False)
    producer.execute("select q.enqueue('a', '{}')")
    assert received(listener) == []  # transaction still open

    producer.commit()
    assert first_arrival(listener) == [("pgq", "a")]


def test_enqueue_many_of_100_jobs_sends_one_notification(
    conn: psycopg.Connection[Any], listener: psycopg.Connection[Any]
) -> None:
    ids = conn.execute("select q.enqueue_many('a', %s)", (Jsonb([{"n": n} for n in range(100)]),)).fetchall()
    assert len(ids) == 100
    assert first_arrival(listener) == [("pgq", "a")]


def test_one_transaction_enqueuing_into_two_queues_sends_one_notification_per_queue(
    connect: Connect, listener: psycopg.Connection[Any]
) -> None:
    producer = connect(autocommit=False)
    producer.execute("select q.enqueue('a', '1')")
    producer.execute("select q.enqueue('a', '2')")
    producer.execute("select q.enqueue('b', '3')")
    producer.commit()

    got = first_arrival(listener)
    assert sorted(got) == [("pgq", "a"), ("pgq", "b")]


def test_one_insert_statement_for_two_queues_sends_one_notification_per_queue(
    conn: psycopg.Connection[Any], listener: psycopg.Connection[Any]
) -> None:
    # The trigger itself, hit by one multi-queue INSERT (as the superuser the tests run as).
    conn.execute("select q.enqueue('a', '0'), q.enqueue('b', '0')")
    assert sorted(first_arrival(listener)) == [("pgq", "a"), ("pgq", "b")]
    # One wake-up per wait (0009): that NOTIFY took the listener's waits; it waits again.
    conn.execute("delete from q_data.job")
    wait_for_jobs(listener, "a", "b")

    conn.execute(
        """insert into q_data.job (queue_id, payload, run_at)
           select qq.id, to_jsonb(g), now() from q_data.queue qq, generate_series(1, 50) g
            where qq.name in ('a', 'b')"""
    )
    assert sorted(first_arrival(listener)) == [("pgq", "a"), ("pgq", "b")]


def test_notification_payload_is_the_queue_name_and_never_job_data(
    conn: psycopg.Connection[Any], listener: psycopg.Connection[Any]
) -> None:
    conn.execute("select q.enqueue('mail.outbound:eu-1', '{\"secret\": \"do not broadcast\"}')")
    assert first_arrival(listener) == [("pgq", "mail.outbound:eu-1")]


def test_scheduled_jobs_send_no_notification(conn: psycopg.Connection[Any], listener: psycopg.Connection[Any]) -> None:
    conn.execute("select q.enqueue('a', '{}', run_at => now() + interval '1 hour')")
    conn.execute("select q.enqueue_many('a', '[1, 2]', run_at => now() + interval '1 hour')")
    assert received(listener) == []
    assert conn.execute("select count(*) from q_data.job where state = 's'").fetchone()[0] == 3


def test_setting_pgq_notify_off_sends_nothing(
    conn: psycopg.Connection[Any], connect: Connect, listener: psycopg.Connection[Any]
) -> None:
    producer = connect()
    producer.execute("set pgq.notify = off")
    producer.execute("select q.enqueue('a', '{}')")
    producer.execute("select q.enqueue_many('a', %s)", (Jsonb(list(range(100))),))
    assert received(listener) == []
    assert conn.execute("select count(*) from q_data.job where state = 'w'").fetchone()[0] == 101


def test_resume_sends_one_notification(conn: psycopg.Connection[Any], listener: psycopg.Connection[Any]) -> None:
    conn.execute("select q.pause('a')")
    assert received(listener) == []
    conn.execute("select q.resume('a')")
    assert first_arrival(listener) == [("pgq", "a")]


def test_releasing_a_claim_sends_one_notification(conn: psycopg.Connection[Any], connect: Connect) -> None:
    conn.execute("select q.enqueue('a', '{}')")
    claimed = conn.execute("select id, token from q.claim('a', 1)").fetchone()
    watcher = connect()
    watcher.execute("listen pgq")
    wait_for_jobs(watcher, "a")  # on demand (0008), one-shot (0009): only a waiting session is told
    assert conn.execute("select q.release(%s, %s)", claimed).fetchone()[0] is True
    assert first_arrival(watcher) == [("pgq", "a")]
    claimed = conn.execute("select id, token from q.claim('a', 1)").fetchone()
    assert conn.execute("select q.release(%s, %s)", claimed).fetchone()[0] is True
    assert received(watcher) == [], "the first release took the wait: nobody waits now"


def test_a_reap_that_requeues_a_lost_claim_sends_one_notification(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    conn.execute("select q.enqueue_many('a', '[1, 2, 3]')")
    worker = connect()
    assert len(worker.execute("select * from q.claim('a', 3, lease => '10 milliseconds')").fetchall()) == 3
    watcher = connect()
    watcher.execute("listen pgq")
    wait_for_jobs(watcher, "a")
    time.sleep(0.05)

    assert conn.execute("select q.reap()").fetchone()[0] == 3
    assert first_arrival(watcher) == [("pgq", "a")]


@pytest.mark.serial  # fills the server-wide NOTIFY queue, then needs it to drain
def test_a_filling_notify_queue_skips_the_hint_and_commits_enqueue_fail_and_release(
    conn: psycopg.Connection[Any], connect: Connect, listener: psycopg.Connection[Any], hostile: Any, db_url: str
) -> None:
    # A session that LISTENs and idles in a transaction while notifications
    # pile up fills the cluster-wide queue, and once it is full every COMMIT
    # that sends one fails with 54000 (design.md#notifications-are-only-hints).
    # pgq stops sending at pgq.notify_queue_limit (a fraction; 0.5 by default,
    # 0.0001 here so that a few megabytes stand for the 4 GB it takes in
    # production).
    limit = 0.0001
    idle = hostile.fill_notify_queue(db_url, megabytes=4)
    usage = conn.execute("select pg_notification_queue_usage()").fetchone()[0]
    assert usage >= limit, f"the hostile session filled {usage:.6f} of the queue"
    received(listener)  # drain what the flood delivered to us (nothing on channel pgq)

    producer = connect()
    producer.execute("select set_config('pgq.notify_queue_limit', %s, false)", (str(limit),))
    producer.execute("select q.enqueue('a', '{}')")
    producer.execute("select q.enqueue_many('a', '[1, 2]')")
    job_id, token = producer.execute("select id, token from q.claim('a', 1)").fetchone()
    assert producer.execute("select q.fail(%s, %s, 'boom', retry_in => '0')", (job_id, token)).fetchone()[0] == "retry"
    job_id, token = producer.execute("select id, token from q.claim('a', 1)").fetchone()
    assert producer.execute("select q.release(%s, %s)", (job_id, token)).fetchone()[0] is True
    assert [r for r in received(listener) if r[0] == "pgq"] == [], "no hint while the queue is filling"

    idle.rollback()  # the hostile session lets go; the queue drains
    producer.execute("select q.enqueue('a', '{}')")
    assert ("pgq", "a") in first_arrival(listener), "hints are back once the queue has room"


def test_a_malformed_notify_queue_limit_falls_back_to_the_default(connect: Connect, listener: Any) -> None:
    producer = connect()
    producer.execute("set pgq.notify_queue_limit = 'lots'")
    producer.execute("select q.enqueue('a', '{}')")
    assert first_arrival(listener) == [("pgq", "a")]
