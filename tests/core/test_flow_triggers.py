"""Flow control's row triggers on q_data.job come with the first limit (q.flow_arm, revision 0007).

Making them takes SHARE ROW EXCLUSIVE on q_data.job, which waits for every open transaction that wrote
q_data.job and makes writers wait behind it: the wait is bounded (2 s), after which q.configure raises
55P03 and changes nothing, and the queue goes on."""

from __future__ import annotations

import time
from typing import Any

import pgq_client
import psycopg
import pytest

FLOW_TRIGGERS = "select count(*) from pg_trigger where tgrelid = 'q_data.job'::regclass and tgname like '\\_1%%flow%%'"


def test_the_first_limit_waits_at_most_2_s_for_an_open_writer_then_changes_nothing(db_url: str) -> None:
    with psycopg.connect(db_url) as writer, psycopg.connect(db_url, autocommit=True) as admin:
        pgq_client.enqueue(writer, "plain", {"i": 1})  # left open: its ROW EXCLUSIVE lock on q_data.job stays
        started = time.monotonic()
        with pytest.raises(psycopg.errors.LockNotAvailable, match="q_data.job is busy"):
            admin.execute("select q.configure('limited', concurrency => 2)")
        waited = time.monotonic() - started
        assert 1.5 <= waited < 30, waited  # it waited for the writer, and not forever
        assert admin.execute(FLOW_TRIGGERS).fetchone() == (0,)
        assert admin.execute("select count(*) from q_data.queue where name = 'limited'").fetchone() == (0,)
        # The queue went on: the open writer commits, others enqueue and claim.
        writer.commit()
        pgq_client.enqueue(admin, "plain", {"i": 2})
        assert len(pgq_client.claim(admin, "plain", 10)) == 2
        # And the same call works now that nobody holds q_data.job.
        settings = pgq_client.configure(admin, "limited", concurrency=2)
        assert settings.concurrency == 2
        assert admin.execute(FLOW_TRIGGERS).fetchone() == (4,)


def test_a_limited_queue_behaves_the_same_whether_its_limit_made_the_triggers_or_found_them(db_url: str) -> None:
    """The slot bookkeeping works from the first job on: a limit set in one transaction makes the
    triggers, and the jobs enqueued, claimed and finished right after it free their slots."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        for queue in ("first", "second"):  # "first" makes the triggers, "second" finds them
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
