"""Concurrent enqueues with the same dedup key make exactly one job; once that
job has finished, the key is free again."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import psycopg

FORK = multiprocessing.get_context("fork")  # the context tests/core/conftest.py runs workers in

PROCESSES = 16


def enqueue_at_once(url: str, barrier: Any, queue: str, key: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        barrier.wait(timeout=60)  # every process is connected: go
        return conn.execute("select q.enqueue(%s, '{}', dedup_key => %s)", (queue, key)).fetchone()[0]


def test_sixteen_concurrent_enqueues_of_one_dedup_key_make_one_job_and_return_its_id(
    conn: psycopg.Connection[Any], db_url: str, run_processes: Callable[..., list[Any]]
) -> None:
    barrier = FORK.Barrier(PROCESSES)
    # A queue nobody has used yet: the queue row is created concurrently too.
    ids = run_processes(enqueue_at_once, [(db_url, barrier, "dedup", "order-42")] * PROCESSES, timeout=60)

    rows = conn.execute("select id, state from q_data.job where dedup_key = 'order-42'").fetchall()
    assert len(rows) == 1
    assert set(ids) == {rows[0][0]}
    assert len(ids) == PROCESSES
    assert conn.execute("select count(*) from q_data.queue where name = 'dedup'").fetchone()[0] == 1


def test_a_running_job_keeps_its_dedup_key_and_a_completed_one_frees_it(conn: psycopg.Connection[Any]) -> None:
    first = conn.execute("select q.enqueue('dedup', '{}', dedup_key => 'k')").fetchone()[0]
    claimed = conn.execute("select id, token from q.claim('dedup', 1)").fetchone()
    assert claimed[0] == first
    assert conn.execute("select q.enqueue('dedup', '{}', dedup_key => 'k')").fetchone()[0] == first

    assert conn.execute("select q.complete(%s, %s)", claimed).fetchone()[0] is True
    second = conn.execute("select q.enqueue('dedup', '{}', dedup_key => 'k')").fetchone()[0]
    assert second != first
    assert conn.execute("select id from q_data.job where dedup_key = 'k'").fetchall() == [(second,)]


def test_after_the_concurrently_deduplicated_job_completes_the_key_enqueues_a_new_job(
    conn: psycopg.Connection[Any], db_url: str, run_processes: Callable[..., list[Any]]
) -> None:
    barrier = FORK.Barrier(PROCESSES)
    ids = run_processes(enqueue_at_once, [(db_url, barrier, "dedup", "k")] * PROCESSES, timeout=60)
    (first,) = set(ids)
    claimed = conn.execute("select id, token from q.claim('dedup', 10)").fetchall()
    assert [c[0] for c in claimed] == [first]
    assert conn.execute("select q.complete(%s, %s)", claimed[0]).fetchone()[0] is True

    barrier = FORK.Barrier(PROCESSES)
    again = run_processes(enqueue_at_once, [(db_url, barrier, "dedup", "k")] * PROCESSES, timeout=60)
    assert len(set(again)) == 1 and again[0] != first
    assert conn.execute("select id from q_data.job where dedup_key = 'k'").fetchall() == [(again[0],)]
