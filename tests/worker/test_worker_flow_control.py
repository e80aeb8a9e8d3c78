"""The worker runtime under flow control
(design.md#flow-control-without-a-hot-row): a queue whose slots are all taken
costs an idle worker about one claim per poll interval (no busy wait), a slot
freed elsewhere reaches it through NOTIFY (not the poll), and a rate-limited
queue is claimed again when its next slot frees."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
from pgq_client import JobContext, Worker
from psycopg.types.json import Jsonb
from worker_support import listener_pids, wait_for

STARTS = "create table starts (job_id bigint, at timestamptz default clock_timestamp())"


def record_start(url: str) -> Any:
    local = threading.local()

    def handler(payload: Any, job: JobContext) -> None:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = psycopg.connect(url, autocommit=True)
        conn.execute("insert into starts (job_id) values (%s)", (job.id,))

    return handler


def hold_the_only_slot(conn: psycopg.Connection[Any], queue: str) -> tuple[int, Any]:
    conn.execute(STARTS)
    conn.execute("select q.configure(%s, concurrency => 1)", (queue,))
    conn.execute("select q.enqueue(%s, '{}')", (queue,))
    blocker = conn.execute("select id, token from q.claim(%s, owner => 0)", (queue,)).fetchone()
    conn.execute("select q.enqueue_many(%s, %s)", (queue, Jsonb([{}] * 3)))
    return blocker[0], blocker[1]


def test_a_full_queue_costs_an_idle_worker_about_one_claim_a_second(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        job, token = hold_the_only_slot(conn, "full")
        worker = Worker(record_start(db_url), "full", database_url=db_url, concurrency=4, poll_interval=1.0).start()
        try:
            wait_for(lambda: listener_pids(db_url), 10, "the listener")
            time.sleep(0.5)
            before = worker.rounds_sent
            time.sleep(4.0)
            rounds = worker.rounds_sent - before
            assert conn.execute("select count(*) from starts").fetchone()[0] == 0, "nothing ran: the slot is taken"
            freed_at = conn.execute("select clock_timestamp() from q.complete(%s, %s)", (job, token)).fetchone()[0]
            wait_for(lambda: conn.execute("select count(*) from starts").fetchone()[0] >= 1, 10, "the freed slot used")
            started = conn.execute("select min(at) from starts").fetchone()[0]
        finally:
            worker.stop()
            assert worker.join(10)
    # About one claim per poll tick while every slot is taken (4 s: 4 or 5), never a busy loop.
    assert rounds <= 8, f"{rounds} round trips in 4 s against a full queue"
    waited = (started - freed_at).total_seconds() * 1000
    print(f"full queue: {rounds} rounds in 4 s; freed slot used after {waited:.1f} ms")


def test_a_slot_freed_elsewhere_reaches_an_idle_worker_by_notify_not_the_poll(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        job, token = hold_the_only_slot(conn, "freed")
        # Poll every 60 s: only the notification of the freed slot can explain a start within seconds.
        worker = Worker(record_start(db_url), "freed", database_url=db_url, concurrency=4, poll_interval=60.0).start()
        try:
            wait_for(lambda: listener_pids(db_url), 10, "the listener")
            time.sleep(1.0)  # the first claim came back empty: every slot taken
            assert conn.execute("select count(*) from starts").fetchone()[0] == 0
            freed_at = conn.execute("select clock_timestamp() from q.complete(%s, %s)", (job, token)).fetchone()[0]
            wait_for(lambda: conn.execute("select count(*) from starts").fetchone()[0] >= 1, 10, "the freed slot used")
            started = conn.execute("select min(at) from starts").fetchone()[0]
            wait_for(lambda: conn.execute("select count(*) from starts").fetchone()[0] == 3, 10, "the other two")
        finally:
            worker.stop()
            assert worker.join(10)
    print(f"freed slot used after {(started - freed_at).total_seconds() * 1000:.1f} ms (poll interval 60 s)")


def test_a_rate_limited_queue_is_claimed_again_when_its_next_slot_frees(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(STARTS)
        conn.execute("select q.configure('rated', rate => 5, per => '1 second')")
        conn.execute("select q.enqueue_many('rated', %s)", (Jsonb([{}] * 12),))
        # Poll every 60 s: without the rate limit's own timer the worker would stop after the first 5.
        worker = Worker(record_start(db_url), "rated", database_url=db_url, concurrency=4, poll_interval=60.0).start()
        try:
            wait_for(lambda: conn.execute("select count(*) from starts").fetchone()[0] == 12, 20, "all twelve")
            at = [r[0] for r in conn.execute("select at from starts order by at").fetchall()]
        finally:
            worker.stop()
            assert worker.join(10)
    # Handler starts follow claims closely; the bound itself is on claims (pgTAP, bench, chaos test).
    spread = (at[-1] - at[0]).total_seconds()
    assert spread >= 1.5, f"12 starts at 5 per second took {spread:.2f} s"
    print(f"rate 5/s: 12 starts over {spread:.2f} s")


def test_pgq_configure_and_limits_commands(db_url: str) -> None:
    from test_pgq_command import no_traceback, pgq

    done = pgq(db_url, "configure", "render", "--concurrency", "2", "--key-concurrency", "1", "--rate", "50",
               "--per", "1m")
    assert done.returncode == 0, done.stderr
    for text in ("concurrency", "2", "key_concurrency", "rate", "50", "per", "1m"):
        assert text in done.stdout, (text, done.stdout)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.enqueue('render', '{}', concurrency_key => 'acme') from generate_series(1, 3)")
        conn.execute("select count(*) from q.claim('render', 5)")
    listing = pgq(db_url, "limits")
    assert listing.returncode == 0, listing.stderr
    for text in ("render", "1 / 2", "at most 1", "1 / 50 per 1m"):
        assert text in listing.stdout, (text, listing.stdout)
    assert pgq(db_url, "configure", "render", "--unlimit", "rate", "--unlimit", "concurrency").returncode == 0
    assert "unlimited" in pgq(db_url, "limits", "render").stdout
    for args, code, text in (
        (("configure", "render", "--concurrency", "0"), 1, "concurrency"),
        (("configure", "render", "--unlimit", "speed"), 2, "concurrency, key_concurrency, rate"),
        (("configure", "render", "--rate", "5", "--per", "soon"), 2, "not an interval"),
    ):
        done = pgq(db_url, *args)
        assert done.returncode == code and text in done.stderr, (args, done.returncode, done.stderr)
        no_traceback(done)
