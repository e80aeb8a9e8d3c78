"""Wake-ups on demand (design.md#wake-ups-on-demand): an enqueue sends NOTIFY only while a session waits for its queue.

A session waits for a queue when a claim it made with ``pgq.listening = on``
and its liveness key came back empty (``pgq.wait_when = empty``, the worker
runtime) or short (without it: loops that claim until short); any other claim
ends the wait (q_data.waiter). Since 0009 a wake-up is one-shot: the first producer that finds a
queue's waits takes them (deletes the rows in its own transaction) and sends the one NOTIFY. Every
check here watches from a separate LISTEN session, which is not itself a waiter: what it receives is
what the producers sent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

Connect = Callable[..., psycopg.Connection[Any]]
QUIET = 0.5  # how long "nothing arrives" is watched for


def watcher(connect: Connect) -> psycopg.Connection[Any]:
    """A session that LISTENs and never claims: it counts what producers send."""
    w = connect()
    w.execute("listen pgq")
    return w


def received(listener: psycopg.Connection[Any], seconds: float = QUIET) -> list[str]:
    return [n.payload for n in listener.notifies(timeout=seconds)]


def waiting_worker(connect: Connect, *queues: str) -> tuple[psycopg.Connection[Any], int]:
    """A worker's session: LISTEN, a liveness key, and an empty listening claim per queue (it now waits)."""
    w = connect()
    w.execute("listen pgq")
    key = w.execute("select q.session_key()").fetchone()[0]
    w.execute("set pgq.listening = on")
    w.execute("set pgq.wait_when = empty")  # as the worker runtime: it claims until a claim comes back empty
    for queue in queues:
        assert w.execute("select * from q.claim(%s, 10, owner => %s)", (queue, key)).fetchall() == []
    return w, key


def waiters(conn: psycopg.Connection[Any]) -> list[tuple[str, int]]:
    return [tuple(r) for r in conn.execute("select queue, session_key from q_data.waiter order by 1, 2")]


def test_enqueues_with_nobody_waiting_send_no_notification(conn: psycopg.Connection[Any], connect: Connect) -> None:
    # Up to 0007 every enqueue's NOTIFY took PostgreSQL's cluster-wide notify lock for its whole commit
    # (design.md#wake-ups-on-demand).
    w = watcher(connect)
    producer = connect()
    for n in range(20):
        producer.execute("select q.enqueue('a', %s)", (Jsonb({"n": n}),))
    producer.execute("select q.enqueue_many('b', %s)", (Jsonb(list(range(50))),))
    assert received(w) == []
    assert conn.execute("select count(*) from q_data.job where state = 'w'").fetchone()[0] == 70


def test_enqueues_while_the_only_worker_is_busy_send_no_notification(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    conn.execute("select q.enqueue_many('a', %s)", (Jsonb(list(range(30))),))
    worker, key = waiting_worker(connect)  # no empty claim yet
    assert len(worker.execute("select * from q.claim('a', 10, owner => %s)", (key,)).fetchall()) == 10  # busy
    w = watcher(connect)
    producer = connect()
    for n in range(20):
        producer.execute("select q.enqueue('a', %s)", (Jsonb({"n": n}),))
    assert received(w) == []


def test_a_waiting_worker_is_notified_for_its_queue_only(conn: psycopg.Connection[Any], connect: Connect) -> None:
    worker, key = waiting_worker(connect, "a")
    assert waiters(conn) == [("a", key)]
    w = watcher(connect)
    conn.execute("select q.enqueue('b', '{}')")
    assert received(w) == []
    conn.execute("select q.enqueue('a', '{}')")
    assert received(w) == ["a"]
    assert [n.payload for n in worker.notifies(timeout=1, stop_after=1)] == ["a"]


def test_a_claim_that_finds_jobs_ends_the_wait_and_an_empty_one_starts_it_again(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    worker, key = waiting_worker(connect, "a")
    conn.execute("select q.enqueue('a', '{}')")
    assert len(worker.execute("select * from q.claim('a', 10, owner => %s)", (key,)).fetchall()) == 1
    assert waiters(conn) == []
    w = watcher(connect)
    conn.execute("select q.enqueue('a', '{}')")
    assert received(w) == []  # busy: its next claim finds the job without being told
    assert len(worker.execute("select * from q.claim('a', 10, owner => %s)", (key,)).fetchall()) == 1
    assert worker.execute("select * from q.claim('a', 10, owner => %s)", (key,)).fetchall() == []
    assert waiters(conn) == [("a", key)]


def test_only_the_claim_that_starts_a_wait_says_so(conn: psycopg.Connection[Any], connect: Connect) -> None:
    # The worker looks once more after the claim that started its wait (the race, sql/triggers/notify_enqueued.sql).
    worker = connect(autocommit=False)
    key = worker.execute("select q.session_key()").fetchone()[0]
    worker.commit()
    said = []
    for _ in range(3):
        worker.execute("set local pgq.listening = on")
        worker.execute("select * from q.claim('a', 5, owner => %s)", (key,))
        said.append(worker.execute("select current_setting('pgq.claim_waiting', true)").fetchone()[0])
        worker.commit()
    assert said == ["new", "", ""] or said == ["new", None, None] or said[0] == "new" and not any(said[1:])


def test_claims_without_listening_or_without_a_key_never_wait(conn: psycopg.Connection[Any], connect: Connect) -> None:
    poller = connect()
    key = poller.execute("select q.session_key()").fetchone()[0]
    poller.execute("select * from q.claim('a', 5, owner => %s)", (key,))  # pgq.listening not set
    poller.execute("set pgq.listening = on")
    poller.execute("select * from q.claim('a', 5)")  # lease-only (PgBouncer): no session to wake
    poller.execute("select * from q.claim('a', 5, owner => 0)")
    assert waiters(conn) == []


def test_a_wait_on_a_queue_nobody_used_yet_is_kept(conn: psycopg.Connection[Any], connect: Connect) -> None:
    worker, key = waiting_worker(connect, "fresh")
    assert waiters(conn) == [("fresh", key)]
    w = watcher(connect)
    conn.execute("select q.enqueue('fresh', '{}')")
    assert received(w) == ["fresh"]


def test_the_reaper_forgets_the_waits_of_an_ended_session(conn: psycopg.Connection[Any], connect: Connect) -> None:
    worker, key = waiting_worker(connect, "a", "b")
    assert len(waiters(conn)) == 2
    worker.close()
    time.sleep(0.2)
    conn.execute("select q.reap()")
    assert waiters(conn) == []
    w = watcher(connect)
    conn.execute("select q.enqueue('a', '{}')")
    assert received(w) == []


def test_pgq_notify_off_sends_nothing_even_to_a_waiting_worker(conn: psycopg.Connection[Any], connect: Connect) -> None:
    waiting_worker(connect, "a")
    w = watcher(connect)
    producer = connect()
    producer.execute("set pgq.notify = off")
    producer.execute("select q.enqueue('a', '{}')")
    assert received(w) == []


def test_pgq_notify_always_notifies_without_a_waiter(conn: psycopg.Connection[Any], connect: Connect) -> None:
    # For LISTEN loops of one's own that do not say they wait (ALTER DATABASE ... SET pgq.notify = always).
    w = watcher(connect)
    producer = connect()
    producer.execute("set pgq.notify = always")
    producer.execute("select q.enqueue('a', '{}')")
    assert received(w) == ["a"]


def test_a_repeatable_read_producer_notifies_without_a_waiter(conn: psycopg.Connection[Any], connect: Connect) -> None:
    # Its snapshot may predate a wait that began before its commit: it cannot see it, so it always sends.
    w = watcher(connect)
    producer = connect(autocommit=False)
    producer.execute("set transaction isolation level repeatable read")
    producer.execute("select q.enqueue('a', '{}')")
    producer.commit()
    assert received(w) == ["a"]


def test_without_wait_when_a_short_claim_waits_and_a_full_one_ends_the_wait(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    # Loops that claim until a claim comes back short (workers before 0008, LISTEN loops of one's own).
    loop = connect()
    key = loop.execute("select q.session_key()").fetchone()[0]
    loop.execute("set pgq.listening = on")
    conn.execute("select q.enqueue_many('a', '[1, 2, 3]')")
    assert len(loop.execute("select * from q.claim('a', 2, owner => %s)", (key,)).fetchall()) == 2
    assert waiters(conn) == []
    assert len(loop.execute("select * from q.claim('a', 2, owner => %s)", (key,)).fetchall()) == 1
    assert waiters(conn) == [("a", key)], "short: it will not look again until told"
    w = watcher(connect)
    conn.execute("select q.enqueue_many('a', '[4, 5]')")
    assert received(w) == ["a"]
    assert len(loop.execute("select * from q.claim('a', 2, owner => %s)", (key,)).fetchall()) == 2
    assert waiters(conn) == []


def test_a_wait_is_woken_once_not_by_every_enqueue(conn: psycopg.Connection[Any], connect: Connect) -> None:
    # 0008 sent one NOTIFY per enqueue while a worker waited (287-471 per 1,000 with a worker running),
    # each a commit under PostgreSQL's global notify lock. One wait, one wake-up.
    worker, key = waiting_worker(connect, "a")
    w = watcher(connect)
    producer = connect()
    for n in range(20):
        producer.execute("select q.enqueue('a', %s)", (Jsonb({"n": n}),))
    assert received(w) == ["a"]
    assert waiters(conn) == []
    assert [n.payload for n in worker.notifies(timeout=1, stop_after=1)] == ["a"]


def test_concurrent_producers_send_one_wake_up_for_one_wait(conn: psycopg.Connection[Any], connect: Connect) -> None:
    # 8 producers enqueue at once into the queue a worker waits for: the first to find the wait takes
    # it (the others skip the row it holds, never wait for it, or find it gone) and sends the only NOTIFY.
    waiting_worker(connect, "a")
    w = watcher(connect)
    producers = [connect() for _ in range(8)]
    go = threading.Barrier(len(producers))
    failures: list[BaseException] = []

    def produce(p: psycopg.Connection[Any]) -> None:
        try:
            go.wait()
            for n in range(25):
                p.execute("select q.enqueue('a', %s)", (Jsonb({"n": n}),))
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=produce, args=(p,)) for p in producers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert failures == []
    assert conn.execute("select count(*) from q_data.job where state = 'w'").fetchone()[0] == 200
    assert received(w) == ["a"]


def test_a_producer_that_rolls_back_leaves_the_wait_for_the_next_enqueue(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    conn.execute("select q.configure('a')")  # the queue's row exists: the producers do not wait on its insert
    _, key = waiting_worker(connect, "a")
    w = watcher(connect)
    holder = connect(autocommit=False)
    holder.execute("select q.enqueue('a', '{}')")  # takes the wait, not committed
    other = connect()
    other.execute("set lock_timeout = '1s'")
    other.execute("select q.enqueue('a', '{}')")  # skips the held wait: no lock wait, no NOTIFY
    holder.rollback()
    assert received(w) == []
    assert waiters(conn) == [("a", key)], "the wait came back with the rollback"
    conn.execute("select q.enqueue('a', '{}')")
    assert received(w) == ["a"], "the next enqueue sends the wake-up"


def test_a_worker_never_waits_for_a_producer_that_holds_its_wait(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    conn.execute("select q.configure('a')")  # the queue's row exists: the producers do not wait on its insert
    worker, key = waiting_worker(connect, "a")
    worker.execute("set lock_timeout = '1s'")  # a wait for the producer's transaction fails the test
    holder = connect(autocommit=False)
    holder.execute("select q.enqueue('a', '{}')")  # takes the worker's wait and keeps its transaction open
    assert worker.execute("select * from q.claim('a', 10, owner => %s)", (key,)).fetchall() == []  # still waiting
    conn.execute("select q.enqueue('a', '{}')")
    assert len(worker.execute("select * from q.claim('a', 10, owner => %s)", (key,)).fetchall()) == 1  # ends it
    assert worker.execute("select q.stop_waiting(%s)", (key,)).fetchone()[0] == 0  # held: left to the producer
    holder.commit()
    assert waiters(conn) == []


def test_a_stale_wait_costs_one_notification_and_the_reaper_is_not_held_by_a_producer(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    # A worker's session ends without a clean stop: its wait is stale. The first enqueue takes it
    # (one needless NOTIFY), none after it. q.reap, which deletes ended sessions, skips a wait a
    # producer holds instead of waiting for that producer's transaction.
    conn.execute("select q.configure('a'), q.configure('b')")
    worker, key = waiting_worker(connect, "a", "b")
    worker.close()
    time.sleep(0.2)
    w = watcher(connect)
    for _ in range(5):
        conn.execute("select q.enqueue('a', '{}')")
    assert received(w) == ["a"]
    holder = connect(autocommit=False)
    holder.execute("select q.enqueue('b', '{}')")  # holds the stale wait for b
    reaper = connect()
    reaper.execute("set lock_timeout = '1s'")
    reaper.execute("select q.reap()")
    assert conn.execute("select count(*) from q_data.session where key = %s", (key,)).fetchone()[0] == 1
    holder.commit()
    reaper.execute("select q.reap()")
    assert conn.execute("select count(*) from q_data.session where key = %s", (key,)).fetchone()[0] == 0
    assert waiters(conn) == []
