"""Per-key rate limits (revision 0007) through the Python client: configure(key_rate, key_per) sets,
changes and removes them and returns them in QueueSettings; limits() reports them; bad values raise
22023 and change nothing; a call without them still runs on a database at revision 0006 (and 0005),
where the new arguments do not exist."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pgq_client
import psycopg
import pytest
from pgq_client import Limit, QueueLimits, QueueSettings, aio, migrations

SECOND = timedelta(seconds=1)


def stored(conn: psycopg.Connection[Any], queue: str) -> tuple[Any, ...]:
    """The queue's row as q_data.queue holds it (not what the client decoded)."""
    row = conn.execute("select key_concurrency, key_rate, key_per from q_data.queue where name = "
                       "%s", (queue,)).fetchone()
    assert row is not None
    return tuple(row)


def test_configure_sets_changes_and_keeps_a_key_rate_and_returns_it(conn: psycopg.Connection[Any]) -> None:
    s = pgq_client.configure(conn, "kr", key_concurrency=3, key_rate=10)
    assert isinstance(s, QueueSettings)
    assert (s.key_concurrency, s.key_rate, s.key_per) == (3, 10, SECOND)  # key_per: 1 second unless given
    assert stored(conn, "kr") == (3, 10, SECOND)

    s = pgq_client.configure(conn, "kr", key_rate=4, key_per=timedelta(minutes=1))
    assert (s.key_concurrency, s.key_rate, s.key_per) == (3, 4, timedelta(minutes=1))
    s = pgq_client.configure(conn, "kr", key_rate=6)  # a new rate keeps the window it had
    assert (s.key_rate, s.key_per) == (6, timedelta(minutes=1))
    s = pgq_client.configure(conn, "kr", key_per=timedelta(milliseconds=500))  # and the other way round
    assert (s.key_rate, s.key_per) == (6, timedelta(milliseconds=500))

    # Settings the call does not name stay, the key rate among them.
    s = pgq_client.configure(conn, "kr", max_attempts=2, rate=100)
    assert (s.max_attempts, s.rate, s.key_concurrency, s.key_rate, s.key_per) == (
        2, 100, 3, 6, timedelta(milliseconds=500))
    assert stored(conn, "kr") == (3, 6, timedelta(milliseconds=500))

    # A queue without one says None.
    plain = pgq_client.configure(conn, "plain", key_concurrency=2)
    assert (plain.key_rate, plain.key_per) == (None, None)


def test_async_configure_sets_a_key_rate(db_url: str) -> None:
    async def scenario() -> QueueSettings:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as aconn:
            return await aio.configure(aconn, "akr", key_concurrency=5, key_rate=7, key_per=timedelta(seconds=2))

    s = asyncio.run(scenario())
    assert (s.queue, s.key_concurrency, s.key_rate, s.key_per) == ("akr", 5, 7, timedelta(seconds=2))


@pytest.mark.parametrize(("settings", "message"), [
    ({"key_concurrency": 2, "key_rate": 0}, "key_rate must be between 1 and 1000"),
    ({"key_concurrency": 2, "key_rate": 1001}, "key_rate must be between 1 and 1000"),
    ({"key_concurrency": 2, "key_rate": 5, "key_per": timedelta(0)}, "key_per must be more than 0"),
    ({"key_concurrency": 2, "key_rate": 5, "key_per": timedelta(days=1, seconds=1)}, "at most 1 day"),
    ({"key_rate": 5}, "a per-key rate needs key_concurrency"),
    ({"key_concurrency": 2, "key_per": SECOND}, "key_per needs a key_rate"),
    ({"key_concurrency": 2, "key_rate": 5, "unlimit": [Limit.KEY_RATE]}, "cannot be set and removed"),
    ({"key_concurrency": 2, "unlimit": ["key_rates"]}, "'key_rate'"),
])
def test_bad_key_rates_raise_22023_and_change_nothing(
    conn: psycopg.Connection[Any], settings: dict[str, Any], message: str
) -> None:
    pgq_client.configure(conn, "bad", max_attempts=4)
    before = conn.execute("select to_jsonb(q) - 'id' from q_data.queue q where name = 'bad'").fetchone()
    with pytest.raises(psycopg.errors.InvalidParameterValue, match=message):
        pgq_client.configure(conn, "bad", max_attempts=9, **settings)
    assert conn.execute("select to_jsonb(q) - 'id' from q_data.queue q where name = 'bad'").fetchone() == before


def test_removing_the_key_concurrency_of_a_queue_with_a_key_rate_is_refused(conn: psycopg.Connection[Any]) -> None:
    pgq_client.configure(conn, "kc", key_concurrency=2, key_rate=5)
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="needs key_concurrency"):
        pgq_client.configure(conn, "kc", unlimit=[Limit.KEY_CONCURRENCY])
    assert stored(conn, "kc") == (2, 5, SECOND)
    # Both at once is fine.
    s = pgq_client.configure(conn, "kc", unlimit=[Limit.KEY_CONCURRENCY, Limit.KEY_RATE])
    assert (s.key_concurrency, s.key_rate, s.key_per) == (None, None, None)


def test_limits_report_the_key_rate_and_unlimit_removes_it(conn: psycopg.Connection[Any]) -> None:
    pgq_client.configure(conn, "lk", key_concurrency=4, key_rate=2, key_per=timedelta(hours=1))
    pgq_client.configure(conn, "lo", key_concurrency=4)
    pgq_client.enqueue_many(conn, "lk", [1, 2, 3, 4, 5], concurrency_keys=["a", "a", "a", "b", None])
    claimed = pgq_client.claim(conn, "lk", 10)
    # Key a starts 2 of its 3 jobs this hour; b its one; the unkeyed job has no key rate.
    assert sorted(j.payload for j in claimed) == [1, 2, 4, 5]
    put_off = conn.execute("select payload::int, state::text, rate_wait from q_data.job where state <> 'r'").fetchall()
    assert put_off == [(3, "s", True)]

    rows = {r.queue: r for r in pgq_client.limits(conn)}
    assert isinstance(rows["lk"], QueueLimits)
    assert (rows["lk"].key_concurrency, rows["lk"].key_rate, rows["lk"].key_per) == (4, 2, timedelta(hours=1))
    assert (rows["lk"].busy_keys, rows["lk"].held) == (2, 0)  # (running counts queue slots: no concurrency here)
    assert (rows["lo"].key_rate, rows["lo"].key_per) == (None, None)
    (only,) = pgq_client.limits(conn, "lk")
    assert only == rows["lk"]

    # Why job 3 waits: its key's rate.
    (job3,) = conn.execute("select id from q_data.job where payload = '3'").fetchone()
    assert "key_rate" in [r.code for r in pgq_client.explain(conn, job3)]

    # unlimit removes the key rate (the key concurrency stays) and the put-off job waits again at once.
    s = pgq_client.configure(conn, "lk", unlimit=[Limit.KEY_RATE])
    assert (s.key_concurrency, s.key_rate, s.key_per) == (4, None, None)
    (row,) = pgq_client.limits(conn, "lk")
    assert (row.key_rate, row.key_per) == (None, None)
    assert conn.execute("select state::text, rate_wait from q_data.job where id = "
                        "%s", (job3,)).fetchone() == ("w", None)
    assert [j.payload for j in pgq_client.claim(conn, "lk", 10)] == [3]
    # ... and by its name as a string too.
    pgq_client.configure(conn, "lk", key_rate=3)
    assert pgq_client.configure(conn, "lk", unlimit=["key_rate"]).key_rate is None


@pytest.mark.parametrize("revision", ["0005", "0006"])
def test_configure_and_limits_without_a_key_rate_run_on_an_older_database(
    new_database: Callable[[], str], revision: str
) -> None:
    url = new_database()
    assert migrations.upgrade(url, revision) == revision
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("select count(*) from pg_attribute where attrelid = 'q.queue'::regclass"
                            " and attname = 'key_rate'").fetchone() == (0,), "an older database, not head"
        plain = pgq_client.configure(conn, "old", max_attempts=3)
        assert (plain.max_attempts, plain.key_rate, plain.key_per) == (3, None, None)
        s = pgq_client.configure(conn, "old", concurrency=2, key_concurrency=1, rate=5)
        assert (s.concurrency, s.key_concurrency, s.rate, s.per, s.key_rate, s.key_per) == (2, 1, 5, SECOND, None, None)
        (row,) = pgq_client.limits(conn)  # q.limits without the key rate columns: the defaults fill them
        assert (row.queue, row.concurrency, row.key_concurrency, row.key_rate, row.key_per) == ("old", 2, 1, None, None)
        # What the database lacks fails there, and says so: the new arguments do not exist...
        with pytest.raises(psycopg.errors.UndefinedFunction):
            pgq_client.configure(conn, "old", key_rate=5)
        # ... and its unlimit does not know the name.
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="unlimit takes"):
            pgq_client.configure(conn, "old", unlimit=[Limit.KEY_RATE])
        assert pgq_client.configure(conn, "old", unlimit=[Limit.RATE]).rate is None


def blocked_after_claim(conn: psycopg.Connection[Any], queue: str, n: int) -> tuple[list[Any], tuple[Any, ...]]:
    """Claim n in one transaction; the payloads and what the claim said (pgq.claim_blocked, claim_retry_in)."""
    with conn.transaction():
        got = [r[0] for r in conn.execute("select payload from q.claim(%s, %s)", (queue, n)).fetchall()]
        said = conn.execute("select current_setting('pgq.claim_blocked', true),"
                            " current_setting('pgq.claim_retry_in', true)").fetchone()
    assert said is not None
    return got, tuple(said)


def test_a_claim_cut_short_by_a_key_rate_says_when_to_look_again(conn: psycopg.Connection[Any]) -> None:
    """What the worker defers on (python_client/pgq_client/worker/_ledger.py): 'key_rate <seconds>'."""
    pgq_client.configure(conn, "ks", key_concurrency=5, key_rate=1, key_per=timedelta(seconds=30))
    pgq_client.enqueue_many(conn, "ks", ["a1", "a2"], concurrency_key="a")
    got, (blocked, retry_in) = blocked_after_claim(conn, "ks", 5)
    assert got == ["a1"] and blocked == "key_rate"
    assert 29.0 < float(retry_in) <= 30.0


def test_a_short_claim_says_when_a_job_put_off_earlier_may_start(conn: psycopg.Connection[Any]) -> None:
    """A job put off by a claim that still got all it asked for (or by another worker's claim) is
    reported by the next short claim, so workers come back when its key's window frees and not at
    the reaper's next promotion (this failed before q.flow_claim looked for put-off jobs)."""
    pgq_client.configure(conn, "kg", key_concurrency=5, key_rate=1, key_per=timedelta(seconds=30))
    pgq_client.enqueue_many(conn, "kg", ["a1", "a2", "b1"], concurrency_keys=["a", "a", "b"])
    got, _ = blocked_after_claim(conn, "kg", 2)  # a1 and b1 start; a2 is put off for 30 s
    assert sorted(got) == ["a1", "b1"]
    assert conn.execute("select state::text, rate_wait from q_data.job where payload = "
                        "'\"a2\"'").fetchone() == ("s", True)
    # The next claim finds nothing to start: it should say when a2 may (as the claim that put it off
    # would have, had it come back short).
    got, (blocked, retry_in) = blocked_after_claim(conn, "kg", 2)
    assert got == []
    assert blocked == "key_rate" and retry_in and 29.0 < float(retry_in) <= 30.0, (blocked, retry_in)
