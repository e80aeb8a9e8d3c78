"""Enqueue inside the application's own transaction: rolled back -> no job; committed -> the job runs.

Both ways the README documents: a psycopg connection (pgq_client.enqueue) and
a SQLAlchemy Session or Connection (pgq_client.sqlalchemy.enqueue).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from pgq_client import Worker, enqueue
from pgq_client import sqlalchemy as pgq_sa
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session
from worker_support import prepare, wait_for


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(db_url))
    with eng.begin() as conn:
        conn.execute(text("create table orders (id int primary key)"))
    yield eng
    eng.dispose()


class Ran:
    def __init__(self) -> None:
        self.payloads: list[Any] = []
        self.lock = threading.Lock()

    def __call__(self, payload: Any) -> None:
        with self.lock:
            self.payloads.append(payload)


def waiting_jobs(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("select count(*) from q_data.job").fetchone()[0]


def test_psycopg_enqueue_rolled_back_leaves_no_job_and_committed_runs(db_url: str) -> None:
    prepare(db_url)
    ran = Ran()
    worker = Worker(ran, "w", database_url=db_url).start()
    try:
        with psycopg.connect(db_url) as conn:  # not autocommit: the caller's transaction
            conn.execute("create table orders (id int primary key)")
            conn.commit()
            conn.execute("insert into orders values (1)")
            enqueue(conn, "w", {"order": 1})
            conn.rollback()
            with conn.transaction():
                conn.execute("insert into orders values (2)")
                enqueue(conn, "w", {"order": 2})
        wait_for(lambda: ran.payloads, 10, "the committed job to run")
    finally:
        worker.stop()
        assert worker.join(10)
    assert ran.payloads == [{"order": 2}]
    assert waiting_jobs(db_url) == 0


def test_sqlalchemy_session_enqueue_rolled_back_leaves_no_job_and_committed_runs(db_url: str, engine: Engine) -> None:
    prepare(db_url)
    with Session(engine) as session:
        session.execute(text("insert into orders values (1)"))
        job = pgq_sa.enqueue(session, "w", {"order": 1, "note": "50% off: it's :free"})
        assert job > 0
        session.rollback()
    assert waiting_jobs(db_url) == 0
    with Session(engine) as session, session.begin():
        session.execute(text("insert into orders values (2)"))
        pgq_sa.enqueue(session, "w", {"order": 2, "note": "50% off: it's :free"})
        assert waiting_jobs(db_url) == 0, "not visible before the commit"
    ran = Ran()
    worker = Worker(ran, "w", database_url=db_url).start()
    try:
        wait_for(lambda: ran.payloads, 10, "the committed job to run")
    finally:
        worker.stop()
        assert worker.join(10)
    assert ran.payloads == [{"order": 2, "note": "50% off: it's :free"}]


def test_sqlalchemy_connection_enqueue_many_commits_with_the_connection(db_url: str, engine: Engine) -> None:
    prepare(db_url)
    with engine.connect() as conn:
        ids = pgq_sa.enqueue_many(conn, "w", [{"n": 1}, {"n": 2}], priority=5)
        conn.rollback()
    assert len(ids) == 2 and waiting_jobs(db_url) == 0
    with engine.begin() as conn:
        ids = pgq_sa.enqueue_many(conn, "w", [{"n": 1}, {"n": 2}], priority=5)
        dedup = pgq_sa.enqueue(conn, "w", {"n": 3}, dedup_key="k")
        assert pgq_sa.enqueue(conn, "w", {"n": 4}, dedup_key="k") == dedup
    assert waiting_jobs(db_url) == 3
