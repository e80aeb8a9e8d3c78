"""q.delete_queue never strands a job an enqueue has not committed yet.

0007: producer `begin; q.enqueue('victim', ...)`, admin `q.delete_queue('victim')` -> 0 at once,
producer commits: the job pointed at a queue that no longer existed, never claimable and invisible
to stats, jobs and explain. From 0008 the delete waits for enqueues in flight into that name (at
most 2 s, then 55P03) and then sees their jobs.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest


def delete_in_background(db_url: str) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        with psycopg.connect(db_url, autocommit=True) as admin:
            try:
                outcome["deleted"] = admin.execute("select * from q.delete_queue('victim')").fetchone()
            except psycopg.Error as exc:
                outcome["error"] = exc
    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def claimable(db_url: str) -> list[Any]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        return conn.execute("select payload from q.claim('victim', 10)").fetchall()


def test_a_delete_racing_an_open_enqueue_waits_for_it_and_then_refuses(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.enqueue('victim', '0')")
        conn.execute("select q.purge('victim')")  # an empty queue, as the review's
    producer = psycopg.connect(db_url)
    producer.execute("select q.enqueue('victim', '1')")  # open
    thread, outcome = delete_in_background(db_url)
    time.sleep(0.5)
    producer.commit()
    thread.join(10)
    assert isinstance(outcome.get("error"), psycopg.errors.ObjectNotInPrerequisiteState), outcome
    assert claimable(db_url) == [(1,)], "the committed job is there and claimable"
    producer.close()


def test_a_delete_behind_an_enqueue_left_open_gives_up_and_loses_nothing(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.enqueue('victim', '0')")
        conn.execute("select q.purge('victim')")
    producer = psycopg.connect(db_url)
    producer.execute("select q.enqueue('victim', '2')")  # open for longer than the delete waits
    thread, outcome = delete_in_background(db_url)
    thread.join(10)
    assert isinstance(outcome.get("error"), psycopg.errors.LockNotAvailable), outcome
    producer.commit()
    producer.close()
    assert claimable(db_url) == [(2,)]


@pytest.mark.parametrize("commit", [True, False])
def test_an_enqueue_after_the_delete_started_makes_the_queue_again(db_url: str, commit: bool) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.enqueue('victim', '0')")
        conn.execute("select q.purge('victim')")
    admin = psycopg.connect(db_url)
    assert admin.execute("select * from q.delete_queue('victim')").fetchone() == (0,)  # open
    done: dict[str, Any] = {}

    def produce() -> None:
        with psycopg.connect(db_url, autocommit=True) as producer:
            done["id"] = producer.execute("select q.enqueue('victim', '3')").fetchone()
    thread = threading.Thread(target=produce)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive(), "the enqueue waits for the delete's transaction"
    admin.commit() if commit else admin.rollback()
    thread.join(10)
    admin.close()
    assert done.get("id") is not None
    assert claimable(db_url) == [(3,)]
