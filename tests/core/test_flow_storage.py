"""Bounded flow-control storage (design.md#bounded-flow-control-storage), with real sessions: what one rolled-back pgTAP
transaction cannot show.

* Keys that come and go leave no slot rows behind, and q.reap does not slow down with the
  number of keys ever seen.
* A producer's open transaction after the first enqueue of a new key does not make another
  producer's enqueue with that key wait.

(q.configure adding the database's first limit behind open producers: tests/core/test_flow_triggers.py.)
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pgq_client
import psycopg
import pytest

BATCH = 1000


def _rows(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    row: Any = conn.execute(
        "select (select count(*) from q_data.key_slot), (select count(*) from q_data.key_rate_slot)"
    ).fetchone()
    return row[0], row[1]


def _reap_ms(conn: psycopg.Connection[Any]) -> float:
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        conn.execute("select q.reap()")
        best = min(best, (time.perf_counter() - started) * 1000)
    return best


# Half a minute at scale: make soak runs it; the bounded sweep itself is pinned by the fast tests above
# and pgTAP's flow folder.
@pytest.mark.soak
def test_100_000_keys_over_time_leave_bounded_slot_rows_and_a_flat_reap(db_url: str) -> None:
    """Every key is new, runs one job and goes: K = 5, a key rate of 3 per hour (so every key's
    last start stays inside its window for the whole test). Slot rows stay at most what is
    admitted plus running, and q.reap costs the same at 1,000, 10,000 and 100,000 keys seen."""
    figures: list[tuple[int, int, int, float]] = []
    with psycopg.connect(db_url, autocommit=True) as conn:
        pgq_client.configure(conn, "orders", key_concurrency=5, key_rate=3, key_per=timedelta(hours=1))
        seen = 0
        for batch in range(100):
            keys = [f"order-{batch}-{i}" for i in range(BATCH)]
            pgq_client.enqueue_many(conn, "orders", list(range(BATCH)), concurrency_keys=keys)
            claimed = pgq_client.claim(conn, "orders", BATCH)
            assert len(claimed) == BATCH
            conn.execute(
                "select q.complete_many(%s, %s)",
                ([j.id for j in claimed], [j.token for j in claimed]))
            seen += BATCH
            conn.execute("select q.reap()")
            if seen in (1_000, 10_000, 100_000):
                slots, rate_rows = _rows(conn)
                figures.append((seen, slots, rate_rows, _reap_ms(conn)))
                print(f"keys seen {seen}: key_slot rows {slots}, key_rate_slot rows {rate_rows}, "
                      f"q.reap {figures[-1][3]:.1f} ms")
                # Nothing is admitted or running now: no key slot rows at all; a rate row per
                # start inside the window (one per key), never key_rate per key.
                assert slots == 0, figures
                assert rate_rows <= seen, figures
    first, last = figures[0][3], figures[-1][3]
    assert last < max(5 * first, first + 20), figures


def _enqueue_in_thread(url: str, queue: str, key: str, out: dict[str, Any]) -> threading.Thread:
    def run() -> None:
        with psycopg.connect(url, autocommit=True) as conn:  # no lock_timeout, no statement_timeout
            started = time.monotonic()
            out["id"] = pgq_client.enqueue(conn, queue, {"from": "b"}, concurrency_key=key)
            out["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.serial  # under 1 s: CPU contention could break it
@pytest.mark.parametrize("ending", ["commit", "rollback"])
def test_an_open_first_enqueue_of_a_new_key_does_not_make_other_producers_wait(db_url: str, ending: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as admin, psycopg.connect(db_url) as a:
        pgq_client.configure(admin, "keyed", key_concurrency=1)
        a_id = pgq_client.enqueue(a, "keyed", {"from": "a"}, concurrency_key="fresh")  # left open
        out: dict[str, Any] = {}
        thread = _enqueue_in_thread(db_url, "keyed", "fresh", out)
        thread.join(3)
        waited = not thread.is_alive()
        if ending == "commit":
            a.commit()
        else:
            a.rollback()
        thread.join(30)
        assert waited, "producer B waited for producer A's open transaction"
        assert out["seconds"] < 1, out
        # K = 1: one of the two runs at a time, and B's job runs once A's is done (or gone).
        states: Any = dict(admin.execute(
            "select id, state::text from q_data.job where concurrency_key = 'fresh'").fetchall())
        if ending == "commit":
            assert states == {a_id: "w", out["id"]: "h"}, states
            (job,) = pgq_client.claim(admin, "keyed", 10)
            assert job.id == a_id
            pgq_client.complete(admin, job.id, job.token)
        else:
            assert states == {out["id"]: "h"}, states
            admin.execute("select q.reap()")  # the sweep admits a held job whose key has room
        (job,) = pgq_client.claim(admin, "keyed", 10)
        assert job.id == out["id"]


@pytest.mark.serial  # under 1 s: CPU contention could break it
def test_with_room_left_the_second_producer_is_admitted_on_another_slot_at_once(db_url: str) -> None:
    """K = 2: producer A's open transaction is making the key's slot 1; B gives it up within
    milliseconds and makes slot 2, so its job is admitted (waiting), not held."""
    with psycopg.connect(db_url, autocommit=True) as admin, psycopg.connect(db_url) as a:
        pgq_client.configure(admin, "keyed2", key_concurrency=2)
        pgq_client.enqueue(a, "keyed2", {"from": "a"}, concurrency_key="fresh")  # left open
        out: dict[str, Any] = {}
        thread = _enqueue_in_thread(db_url, "keyed2", "fresh", out)
        thread.join(3)
        done = not thread.is_alive()
        a.commit()
        thread.join(30)
        assert done and out["seconds"] < 1, out
        row: Any = admin.execute(
            "select state::text, key_slot from q_data.job where id = %s", (out["id"],)).fetchone()
        assert row == ("w", 2), row
        assert len(pgq_client.claim(admin, "keyed2", 10)) == 2
