"""Flow control's row trigger on q_data.job exists from installation (revision 0008).

Up to 0007 the first limit of the database made them (q.flow_arm), which took SHARE ROW EXCLUSIVE on
q_data.job: it waited for every open transaction that had written jobs (2 s at most, then 55P03) and
every writer waited behind it, so producers that always kept one writing transaction open made every
such q.configure fail (5 of 5: design.md#the-flow-triggers-exist-from-installation). q.configure
takes no lock on q_data.job now."""

from __future__ import annotations

import time
from typing import Any

import pgq_client
import psycopg
import pytest

# The row trigger, BEFORE INSERT (0011 merged six into three; 0012 dropped the UPDATE one, 0014 the DELETE one).
FLOW_TRIGGERS = "select count(*) from pg_trigger where tgrelid = 'q_data.job'::regclass and tgname like '\\_1%%'"


@pytest.mark.serial  # configure under 0.5 s: CPU contention could break it
def test_the_first_limit_is_set_while_producers_always_keep_a_writing_transaction_open(db_url: str) -> None:
    """Two producers hand an open transaction back and forth (one is always open, having written
    q_data.job): q.configure adding the database's first limit succeeds every time, at once."""
    with psycopg.connect(db_url) as p1, psycopg.connect(db_url) as p2, \
            psycopg.connect(db_url, autocommit=True) as admin:
        pgq_client.enqueue(admin, "plain", {"p": 0})  # the queue exists (its first enqueue is not the point)
        pgq_client.enqueue(p1, "plain", {"p": 1})  # p1 open
        for i in range(5):
            pgq_client.enqueue(p2, "plain", {"p": 2})  # p2 open too
            p1.commit()
            started = time.monotonic()
            settings = pgq_client.configure(admin, f"limited-{i}", concurrency=5)
            took = time.monotonic() - started
            assert settings.concurrency == 5
            assert took < 0.5, took
            pgq_client.enqueue(p1, "plain", {"p": 1})  # p1 open again
            p2.commit()
        p1.commit()
        # The limit works from its first job.
        pgq_client.enqueue_many(admin, "limited-0", list(range(8)))
        assert len(pgq_client.claim(admin, "limited-0", 10)) == 5


def test_a_limited_queue_frees_its_slots_from_the_first_job(db_url: str) -> None:
    """The slot bookkeeping works from the first job on, for the first limited queue and the next."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert conn.execute(FLOW_TRIGGERS).fetchone() == (1,)  # before any limit
        for queue in ("first", "second"):
            pgq_client.configure(conn, queue, concurrency=1, key_concurrency=1)
            pgq_client.enqueue_many(conn, queue, [1, 2, 3], concurrency_key="k")
            for _ in range(3):
                (job,) = pgq_client.claim(conn, queue, 5)
                assert pgq_client.claim(conn, queue, 5) == []  # one at a time
                pgq_client.complete(conn, job.id, job.token)
            row: Any = conn.execute(
                "select (select count(*) from q_data.queue_slot s join q_data.queue qq on qq.id = s.queue_id"
                "         where qq.name = %s and s.job_id is not null),"
                "       (select count(*) from q_data.key_slot s join q_data.queue qq on qq.id = s.queue_id"
                "         where qq.name = %s and s.job_id is not null)", (queue, queue)).fetchone()
            assert row == (0, 0), queue
