"""q.claim_explained (revision 0009, design.md#short-claims-explain-themselves): a claim that says why
it came back short, in the rows of its one statement, so a pooled or autocommit client in any language
learns it; and a retry_in that is never 0 or empty while a key rate has jobs put off."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pgq_client
import psycopg
from pgq_client import Blocked, ClaimAnswer, aio


def said_by_claim(conn: psycopg.Connection[Any], queue: str, n: int) -> tuple[int, str, str]:
    """Claim n with q.claim in one transaction: how many, and pgq.claim_blocked / pgq.claim_retry_in."""
    with conn.transaction():
        got = len(conn.execute("select id from q.claim(%s, %s)", (queue, n)).fetchall())
        said = conn.execute("select current_setting('pgq.claim_blocked', true),"
                            " current_setting('pgq.claim_retry_in', true)").fetchone()
    assert said is not None
    return got, said[0], said[1]


def test_an_empty_claim_says_why_on_an_autocommit_connection(conn: psycopg.Connection[Any]) -> None:
    """The one-statement client's case: q.claim on autocommit returns no row and the settings are gone
    with its transaction; claim_explained's answer carries the limit and when to look again."""
    pgq_client.configure(conn, "rated", rate=1, per=timedelta(seconds=30))
    pgq_client.enqueue_many(conn, "rated", ["a", "b", "c"])

    first = pgq_client.claim_explained(conn, "rated", 2)
    assert [j.payload for j in first.jobs] == ["a"]
    assert first.blocked is Blocked.RATE and first.retry_in is not None
    assert timedelta(seconds=29) < first.retry_in <= timedelta(seconds=30)

    assert pgq_client.claim(conn, "rated", 2) == []  # the plain claim: nothing, and nothing said
    assert conn.execute("select current_setting('pgq.claim_blocked', true)").fetchone() in (("",), (None,))
    empty = pgq_client.claim_explained(conn, "rated", 2)
    assert empty.jobs == [] and empty.blocked == "rate"
    assert empty.retry_in is not None and timedelta(seconds=29) < empty.retry_in <= timedelta(seconds=30)
    # The claimed job is a real claim: it completes with its token.
    assert pgq_client.complete(conn, first.jobs[0].id, first.jobs[0].token)


def test_held_and_paused_and_empty_queues_each_say_so(conn: psycopg.Connection[Any]) -> None:
    pgq_client.configure(conn, "keyed", key_concurrency=1)
    pgq_client.enqueue_many(conn, "keyed", ["k1", "k2", "k3"], concurrency_key="t1")
    got = pgq_client.claim_explained(conn, "keyed", 3)
    assert [j.payload for j in got.jobs] == ["k1"]
    assert (got.blocked, got.retry_in) == (Blocked.KEY_CONCURRENCY, None)

    pgq_client.enqueue(conn, "stopped", {"x": 1})
    pgq_client.pause(conn, "stopped")
    assert pgq_client.claim_explained(conn, "stopped", 1) == ClaimAnswer([], Blocked.PAUSED, None)

    pgq_client.enqueue(conn, "plain", {"x": 1})
    assert len(pgq_client.claim_explained(conn, "plain", 1).jobs) == 1
    assert pgq_client.claim_explained(conn, "plain", 1) == ClaimAnswer([], None, None)


def test_async_claim_explained_gives_the_same_answer(db_url: str) -> None:
    async def scenario() -> tuple[ClaimAnswer, ClaimAnswer]:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as aconn:
            await aio.configure(aconn, "conc", concurrency=1)
            await aio.enqueue_many(aconn, "conc", [1, 2])
            return await aio.claim_explained(aconn, "conc", 2), await aio.claim_explained(aconn, "conc", 2)

    first, second = asyncio.run(scenario())
    assert [j.payload for j in first.jobs] == [1] and first.blocked is Blocked.CONCURRENCY
    assert second == ClaimAnswer([], Blocked.CONCURRENCY, None)


def test_a_free_key_slot_another_claim_holds_says_retry_soon_not_zero(
    conn: psycopg.Connection[Any], db_url: str
) -> None:
    """Regression ("retry_in was 0 on 20 of 144 short claims": design.md#short-claims-explain-themselves): the
    key's slot is free but another claim holds it locked for the moment its transaction lasts. Until 0009 the
    claim said key_rate "0", and a client that trusted it claimed again at once, in a busy loop."""
    pgq_client.configure(conn, "kb", key_concurrency=5, key_rate=1, key_per=timedelta(milliseconds=200))
    pgq_client.enqueue(conn, "kb", "a1", concurrency_key="a")
    assert len(pgq_client.claim(conn, "kb", 1)) == 1  # makes and stamps the key's one rate slot
    time.sleep(0.3)  # the slot is free again
    pgq_client.enqueue(conn, "kb", "a2", concurrency_key="a")
    with psycopg.connect(db_url) as other:  # another claim in the middle of taking that free slot
        other.execute("select from q_data.key_rate_slot where key = 'a' for no key update")
        got, blocked, retry_in = said_by_claim(conn, "kb", 1)
        assert (got, blocked) == (0, "key_rate")
        assert retry_in and float(retry_in) > 0, f"retry_in {retry_in!r} on a short claim with a job waiting"
        answer = pgq_client.claim_explained(conn, "kb", 1)
        assert answer.jobs == [] and answer.blocked is Blocked.KEY_RATE
        assert answer.retry_in is not None and answer.retry_in > timedelta(0)
        other.rollback()
    # Once that claim has ended, the job starts.
    assert [j.payload for j in pgq_client.claim_explained(conn, "kb", 1).jobs] == ["a2"]


def test_a_short_claim_says_when_put_off_jobs_are_due_behind_many_delayed_jobs(
    conn: psycopg.Connection[Any],
) -> None:
    """Regression ("empty on 9 of 222 short claims ... over 100 jobs held or put off":
    design.md#short-claims-explain-themselves): until 0009 a short claim looked for put-off jobs among the queue's
    first 100 scheduled jobs only, and said nothing when more delayed jobs (or retries) came first."""
    pgq_client.configure(conn, "kd", key_concurrency=50, key_rate=1, key_per=timedelta(seconds=30))
    conn.execute("select q.enqueue('kd', to_jsonb(g), run_at => now() + interval '10 seconds')"
                 " from generate_series(1, 150) g")
    pgq_client.enqueue_many(conn, "kd", ["a1", "a2", "a3"], concurrency_key="a")
    assert said_by_claim(conn, "kd", 5)[:2] == (1, "key_rate")  # a1 starts, a2 and a3 are put off
    got, blocked, retry_in = said_by_claim(conn, "kd", 5)
    assert (got, blocked) == (0, "key_rate"), (got, blocked, retry_in)
    assert retry_in and 29.0 < float(retry_in) <= 30.0
