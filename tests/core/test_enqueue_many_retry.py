"""A bulk enqueue whose COMMIT reply was lost can be retried (design.md#retrying-a-bulk-enqueue).

In an external chaos run a q.enqueue_many batch committed but its reply never
reached the producer (the server was stopped with -m immediate); the producer
retried and every job of the batch existed twice. With idempotency_key the
retry returns the first call's ids and adds nothing; dedup_keys do the same
per element while the jobs are live."""

from __future__ import annotations

import socket
from typing import Any

import pgq_client
import psycopg
from pgq_client import sqlalchemy as pgq_sa
from sqlalchemy import create_engine, pool

PAYLOADS = [{"n": n} for n in range(6)]


def commit_without_reading_the_reply(url: str, key: str) -> None:
    """BEGIN; enqueue_many; send COMMIT and hang up before the reply arrives (a lost reply)."""
    conn = psycopg.connect(url)
    pgq_client.enqueue_many(conn, "retry", PAYLOADS, idempotency_key=key)
    conn.pgconn.send_query(b"commit")
    conn.pgconn.flush()
    socket.socket(fileno=conn.pgconn.socket).shutdown(socket.SHUT_RDWR)
    conn.close()


def wait_committed(conn: psycopg.Connection[Any], count: int) -> None:
    for _ in range(200):
        if conn.execute("select count(*) from q_data.job").fetchone()[0] >= count:
            return
        conn.execute("select pg_sleep(0.02)")
    raise AssertionError("the hung-up COMMIT never landed")


def test_a_batch_retried_after_its_commit_reply_was_lost_returns_the_same_ids(
    conn: psycopg.Connection[Any], db_url: str
) -> None:
    commit_without_reading_the_reply(db_url, "orders-2026-12-01-batch-3")
    wait_committed(conn, len(PAYLOADS))
    first = [r[0] for r in conn.execute("select id from q_data.job order by id")]

    with psycopg.connect(db_url) as producer:  # the producer's retry, knowing nothing
        again = pgq_client.enqueue_many(producer, "retry", PAYLOADS, idempotency_key="orders-2026-12-01-batch-3")
    assert again == first
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == len(PAYLOADS), "no job twice"


def test_dedup_keys_through_the_thin_client_and_sqlalchemy(conn: psycopg.Connection[Any], db_url: str) -> None:
    keys = [f"order-{n}" for n in range(len(PAYLOADS))]
    first = pgq_client.enqueue_many(conn, "retry", PAYLOADS, dedup_keys=keys)
    engine = create_engine("postgresql+psycopg://", poolclass=pool.NullPool, creator=lambda: psycopg.connect(db_url))
    with engine.begin() as sa_conn:
        via_sa = pgq_sa.enqueue_many(sa_conn, "retry", PAYLOADS, dedup_keys=keys)
        via_sa_idem = pgq_sa.enqueue_many(sa_conn, "retry", [1, 2], idempotency_key="sa-1")
        via_sa_idem_again = pgq_sa.enqueue_many(sa_conn, "retry", [1, 2], idempotency_key="sa-1")
    assert via_sa == first
    assert via_sa_idem == via_sa_idem_again and len(via_sa_idem) == 2
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == len(PAYLOADS) + 2
