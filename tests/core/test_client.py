"""The thin client, sync (pgq_client) and async (pgq_client.aio): every call
round-trips through the real SQL API and returns the documented dataclasses,
never commits, and surfaces bad input as psycopg errors with the SQLSTATE."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import pgq_client
import psycopg
import pytest
from pgq_client import Job, Outcome, QueueStats, migrations
from pgq_client import aio as pgq_aio

Connect = Callable[..., psycopg.Connection[Any]]


def test_from_pgq_client_import_claim_gives_the_client_function() -> None:
    from pgq_client import claim

    assert claim is pgq_client._client.claim
    assert callable(pgq_aio.claim) and asyncio.iscoroutinefunction(pgq_aio.claim)


def job_state(conn: psycopg.Connection[Any], job_id: int) -> str | None:
    row = conn.execute("select state from q_data.job where id = %s", (job_id,)).fetchone()
    if row:
        return str(row[0])
    row = conn.execute("select state from q_data.job_history where id = %s", (job_id,)).fetchone()
    return row[0] if row else None


# --- sync -------------------------------------------------------------------


def test_sync_enqueue_claim_heartbeat_complete_round_trip(conn: psycopg.Connection[Any]) -> None:
    first = pgq_client.enqueue(conn, "client", {"n": 1}, priority=5)
    rest = pgq_client.enqueue_many(conn, "client", [{"n": 2}, {"n": 3}, [4], "five"])
    assert isinstance(first, int) and all(isinstance(i, int) for i in rest) and len(rest) == 4

    jobs = pgq_client.claim(conn, "client", 3, lease=timedelta(minutes=1))
    assert all(type(j) is Job for j in jobs)
    assert [j.id for j in jobs] == [first, rest[0], rest[1]]  # priority first, then oldest
    job = jobs[0]
    assert (job.queue, job.payload, job.attempt, job.crashes, job.priority) == ("client", {"n": 1}, 1, 0, 5)
    assert isinstance(job.token, UUID) and isinstance(job.lease_until, datetime)

    assert pgq_client.heartbeat(conn, job.id, job.token, lease=timedelta(minutes=2)) == "running"
    beats = pgq_client.heartbeat_many(conn, jobs)
    assert beats == [Outcome(j.id, "running") for j in jobs]

    assert pgq_client.complete(conn, job.id, job.token) is True
    assert pgq_client.complete(conn, job.id, job.token) is False
    assert sorted(pgq_client.complete_many(conn, jobs[1:])) == sorted(j.id for j in jobs[1:])
    assert pgq_client.complete_many(conn, jobs) == []

    payloads = [j.payload for j in pgq_client.claim(conn, "client", 10)]
    assert payloads == [[4], "five"]


def test_sync_fail_retry_cancel_round_trip(conn: psycopg.Connection[Any]) -> None:
    ids = pgq_client.enqueue_many(conn, "client", [1, 2, 3])
    a, b, c = pgq_client.claim(conn, "client", 3)

    assert pgq_client.fail(conn, a.id, a.token, "try again", retry_in=timedelta(0)) == "retry"
    assert job_state(conn, a.id) == "w"
    assert pgq_client.fail(conn, b.id, b.token, "hopeless", retryable=False) == "dead"
    assert job_state(conn, b.id) == "dead"
    assert pgq_client.fail(conn, b.id, b.token, "again") == "lost"
    outcomes = pgq_client.fail_many(conn, [(c, "later"), (b, "stale")], retry_in=timedelta(hours=1))
    assert outcomes == [Outcome(c.id, "retry"), Outcome(b.id, "lost")]
    assert job_state(conn, c.id) == "s"

    assert pgq_client.retry(conn, b.id) == b.id
    assert job_state(conn, b.id) == "w"
    assert pgq_client.cancel(conn, c.id) is True
    assert pgq_client.cancel(conn, c.id) is False
    assert job_state(conn, c.id) == "cancelled"
    assert sorted(j.id for j in pgq_client.claim(conn, "client", 10)) == sorted([ids[0], ids[1]])


def test_sync_release_gives_claims_back_without_spending_an_attempt(conn: psycopg.Connection[Any]) -> None:
    pgq_client.enqueue_many(conn, "client", [1, 2, 3])
    a, b, c = pgq_client.claim(conn, "client", 3)
    assert pgq_client.release(conn, a.id, a.token) is True
    assert pgq_client.release(conn, a.id, a.token) is False
    assert sorted(pgq_client.release_many(conn, [a, b, c])) == sorted([b.id, c.id])
    again = pgq_client.claim(conn, "client", 3)
    assert [j.id for j in again] == [a.id, b.id, c.id]
    assert {j.attempt for j in again} == {1}


def test_sync_heartbeat_tells_a_worker_its_job_was_cancelled(conn: psycopg.Connection[Any]) -> None:
    pgq_client.enqueue(conn, "client", {})
    (job,) = pgq_client.claim(conn, "client")
    assert pgq_client.cancel(conn, job.id) is True
    assert pgq_client.heartbeat(conn, job.id, job.token) == "cancelled"
    assert pgq_client.heartbeat_many(conn, [job]) == [Outcome(job.id, "cancelled")]
    assert pgq_client.complete(conn, job.id, job.token) is False


def test_sync_pause_resume_stats_reap_session_key_round_trip(conn: psycopg.Connection[Any]) -> None:
    pgq_client.enqueue_many(conn, "client", [1, 2])
    pgq_client.enqueue(conn, "client", 3, run_at=datetime.now().astimezone() + timedelta(hours=1))
    pgq_client.pause(conn, "client")
    assert pgq_client.claim(conn, "client", 10) == []

    (paused,) = pgq_client.stats(conn)
    assert type(paused) is QueueStats
    assert (paused.queue, paused.paused, paused.waiting, paused.scheduled, paused.running, paused.dead) == (
        "client", True, 2, 1, 0, 0,
    )
    assert isinstance(paused.oldest_waiting, timedelta)

    pgq_client.resume(conn, "client")
    assert len(pgq_client.claim(conn, "client", 1, lease=timedelta(milliseconds=10))) == 1
    key = pgq_client.session_key(conn)
    assert isinstance(key, int) and key > 0 and pgq_client.session_key(conn) == key
    conn.execute("select pg_sleep(0.05)")
    assert pgq_client.reap(conn) == 1
    assert pgq_client.reap(conn, max_jobs=10) == 0
    (after,) = pgq_client.stats(conn)
    assert (after.paused, after.waiting, after.running) == (False, 2, 0)


def test_sync_claim_with_an_owner_key_from_another_connection(conn: psycopg.Connection[Any], connect: Connect) -> None:
    liveness = connect()
    key = pgq_client.session_key(liveness)
    pgq_client.enqueue(conn, "client", {})
    (job,) = pgq_client.claim(conn, "client", owner=key)
    assert conn.execute("select owner from q_data.job where id = %s", (job.id,)).fetchone()[0] == key


def test_sync_client_functions_never_commit(conn: psycopg.Connection[Any], connect: Connect) -> None:
    producer = connect(autocommit=False)
    pgq_client.enqueue(producer, "client", {"n": 1})
    pgq_client.enqueue_many(producer, "client", [2, 3])
    jobs = pgq_client.claim(producer, "client", 3)
    pgq_client.complete_many(producer, jobs[:1])
    pgq_client.pause(producer, "client")
    assert producer.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
    assert conn.execute("select count(*) from "
                        "q_data.job").fetchone()[0] == 0, "nothing visible before the caller commits"
    producer.rollback()

    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0
    assert conn.execute("select count(*) from q_data.queue where paused").fetchone()[0] == 0


def test_sync_listen_refuses_a_connection_that_is_not_autocommit(connect: Connect) -> None:
    with pytest.raises(ValueError, match="autocommit"):
        next(pgq_client.listen(connect(autocommit=False), timeout=0.1))


def test_sync_listen_yields_the_queue_name_after_an_enqueue_on_another_connection(
    conn: psycopg.Connection[Any], connect: Connect
) -> None:
    listening = connect()
    # An enqueue notifies only a queue some session waits for: this one says so with an empty listening claim.
    key = pgq_client.session_key(listening)
    listening.execute("set pgq.listening = on")
    assert pgq_client.claim(listening, "client", 1, owner=key) == []
    stop = threading.Event()

    def produce() -> None:  # keeps enqueuing until the listener has heard one (LISTEN happens lazily)
        with psycopg.connect(conn.info.dsn, autocommit=True) as producer:
            while not stop.wait(0.1):
                pgq_client.enqueue(producer, "other", {})
                pgq_client.enqueue(producer, "client", {})

    thread = threading.Thread(target=produce)
    thread.start()
    try:
        heard = next(pgq_client.listen(listening, ["client"], timeout=10), None)
    finally:
        stop.set()
        thread.join()
    assert heard == "client"


@pytest.mark.parametrize(
    ("call", "sqlstate"),
    [
        pytest.param(lambda c: pgq_client.enqueue(c, "", {}), "22023", id="empty-queue-name"),
        pytest.param(lambda c: pgq_client.enqueue(c, "x" * 64, {}), "22023", id="queue-name-too-long"),
        pytest.param(lambda c: pgq_client.enqueue(c, "bad name!", {}), "22023", id="queue-name-bad-characters"),
        pytest.param(lambda c: pgq_client.enqueue(c, None, {}), "22004", id="null-queue"),
        pytest.param(lambda c: pgq_client.enqueue(c, "ok", "nul \u0000 char"), "22P05", id="nul-in-payload"),
        pytest.param(lambda c: pgq_client.enqueue(c, "ok", secrets.token_hex(600_000)), "54000", id="payload-over-cap"),
        pytest.param(lambda c: pgq_client.enqueue(c, "ok", {}, priority=40_000), "22023", id="priority-out-of-range"),
        pytest.param(lambda c: pgq_client.enqueue(c, "ok", {}, max_attempts=0), "22023", id="max-attempts-zero"),
        pytest.param(lambda c: pgq_client.enqueue_many(c, "ok", [0] * 10_001), "54000", id="enqueue-many-too-many"),
        pytest.param(lambda c: pgq_client.claim(c, "ok", 0), "22023", id="claim-n-zero"),
        pytest.param(lambda c: pgq_client.claim(c, "ok", 1_000_000), "22023", id="claim-n-absurd"),
        pytest.param(lambda c: pgq_client.claim(c, "ok", lease=timedelta(seconds=-1)), "22023", id="negative-lease"),
        pytest.param(lambda c: pgq_client.claim(c, "ok", owner=-1), "22023", id="negative-owner"),
        pytest.param(lambda c: pgq_client.complete(c, None, None), "22004", id="complete-null-id"),
        pytest.param(
            lambda c: pgq_client.heartbeat(c, 1, UUID(int=1), lease=timedelta(seconds=-1)),
            "22023",
            id="heartbeat-negative-lease",
        ),
        pytest.param(
            lambda c: pgq_client.fail(c, 1, UUID(int=1), "e", retry_in=timedelta(seconds=-1)),
            "22023",
            id="fail-negative-retry-in",
        ),
        pytest.param(lambda c: pgq_client.cancel(c, 987_654_321), "P0002", id="cancel-unknown-id"),
        pytest.param(lambda c: pgq_client.retry(c, 987_654_321), "P0002", id="retry-unknown-id"),
        pytest.param(lambda c: pgq_client.reap(c, 0), "22023", id="reap-max-jobs-zero"),
    ],
)
def test_sync_bad_input_raises_a_psycopg_error_with_the_documented_sqlstate_and_writes_nothing(
    conn: psycopg.Connection[Any], call: Callable[[psycopg.Connection[Any]], Any], sqlstate: str
) -> None:
    with pytest.raises(psycopg.Error) as raised:
        call(conn)
    assert raised.value.sqlstate == sqlstate, raised.value
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0
    assert conn.execute("select count(*) from q_data.queue").fetchone()[0] == 0


def test_sync_retry_of_a_job_that_is_not_dead_raises_55000(conn: psycopg.Connection[Any]) -> None:
    job_id = pgq_client.enqueue(conn, "client", {})
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as raised:
        pgq_client.retry(conn, job_id)
    assert raised.value.sqlstate == "55000"
    assert job_state(conn, job_id) == "w"


def test_sync_retry_of_a_dead_job_whose_dedup_key_is_taken_raises_23505(conn: psycopg.Connection[Any]) -> None:
    dead = pgq_client.enqueue(conn, "client", {}, dedup_key="k")
    (job,) = pgq_client.claim(conn, "client")
    assert pgq_client.fail(conn, job.id, job.token, "no", retryable=False) == "dead"
    taken = pgq_client.enqueue(conn, "client", {}, dedup_key="k")
    with pytest.raises(psycopg.errors.UniqueViolation) as raised:
        pgq_client.retry(conn, dead)
    assert raised.value.sqlstate == "23505"
    assert (job_state(conn, dead), job_state(conn, taken)) == ("dead", "w")


# --- async ------------------------------------------------------------------


def test_async_enqueue_claim_heartbeat_complete_round_trip(db_url: str) -> None:
    async def scenario() -> None:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            first = await pgq_aio.enqueue(conn, "client", {"n": 1}, priority=5)
            rest = await pgq_aio.enqueue_many(conn, "client", [{"n": 2}, {"n": 3}, [4]])
            assert isinstance(first, int) and len(rest) == 3

            jobs = await pgq_aio.claim(conn, "client", 3, lease=timedelta(minutes=1))
            assert all(type(j) is Job for j in jobs)
            assert [j.id for j in jobs] == [first, rest[0], rest[1]]
            assert (jobs[0].payload, jobs[0].attempt, jobs[0].crashes, jobs[0].priority) == ({"n": 1}, 1, 0, 5)
            assert isinstance(jobs[0].token, UUID) and isinstance(jobs[0].lease_until, datetime)

            assert await pgq_aio.heartbeat(conn, jobs[0].id, jobs[0].token) == "running"
            assert await pgq_aio.heartbeat_many(conn, jobs) == [Outcome(j.id, "running") for j in jobs]
            assert await pgq_aio.complete(conn, jobs[0].id, jobs[0].token) is True
            assert await pgq_aio.complete(conn, jobs[0].id, jobs[0].token) is False
            assert sorted(await pgq_aio.complete_many(conn, jobs[1:])) == sorted(j.id for j in jobs[1:])
            (last,) = await pgq_aio.claim(conn, "client", 10)
            assert last.payload == [4]
            assert await pgq_aio.release(conn, last.id, last.token) is True
            (last,) = await pgq_aio.claim(conn, "client", 10)
            assert await pgq_aio.release_many(conn, [last]) == [last.id]
            assert await pgq_aio.release_many(conn, [last]) == []

    asyncio.run(scenario())


def test_async_fail_retry_cancel_pause_resume_stats_reap_session_key_round_trip(db_url: str) -> None:
    async def scenario() -> None:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            await pgq_aio.enqueue_many(conn, "client", [1, 2, 3])
            a, b, c = await pgq_aio.claim(conn, "client", 3)
            assert await pgq_aio.fail(conn, a.id, a.token, "again", retry_in=timedelta(0)) == "retry"
            assert await pgq_aio.fail(conn, b.id, b.token, "hopeless", retryable=False) == "dead"
            assert await pgq_aio.fail_many(conn, [(c, "later"), (b, "stale")], retry_in=timedelta(hours=1)) == [
                Outcome(c.id, "retry"),
                Outcome(b.id, "lost"),
            ]
            assert await pgq_aio.retry(conn, b.id) == b.id
            assert await pgq_aio.cancel(conn, c.id) is True
            assert await pgq_aio.cancel(conn, c.id) is False

            await pgq_aio.pause(conn, "client")
            assert await pgq_aio.claim(conn, "client", 10) == []
            (stats,) = await pgq_aio.stats(conn)
            assert type(stats) is QueueStats
            assert (stats.queue, stats.paused, stats.waiting, stats.scheduled, stats.running, stats.dead) == (
                "client", True, 2, 0, 0, 0,
            )
            await pgq_aio.resume(conn, "client")
            assert len(await pgq_aio.claim(conn, "client", 1, lease=timedelta(milliseconds=10))) == 1
            key = await pgq_aio.session_key(conn)
            assert isinstance(key, int) and await pgq_aio.session_key(conn) == key
            await asyncio.sleep(0.05)
            assert await pgq_aio.reap(conn) == 1

    asyncio.run(scenario())


def test_async_client_functions_never_commit(conn: psycopg.Connection[Any], db_url: str) -> None:
    async def scenario() -> None:
        async with await psycopg.AsyncConnection.connect(db_url) as producer:
            await pgq_aio.enqueue(producer, "client", {"n": 1})
            await pgq_aio.enqueue_many(producer, "client", [2, 3])
            assert len(await pgq_aio.claim(producer, "client", 3)) == 3
            assert producer.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
            assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0
            await producer.rollback()

    asyncio.run(scenario())
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0


def test_async_listen_refuses_a_connection_that_is_not_autocommit(db_url: str) -> None:
    async def scenario() -> None:
        async with await psycopg.AsyncConnection.connect(db_url) as conn:
            with pytest.raises(ValueError, match="autocommit"):
                await anext(await pgq_aio.listen(conn, timeout=0.1))

    asyncio.run(scenario())


def test_async_listen_yields_the_queue_name_after_an_enqueue_on_another_connection(db_url: str) -> None:
    async def scenario() -> str | None:
        async with (
            await psycopg.AsyncConnection.connect(db_url, autocommit=True) as listening,
            await psycopg.AsyncConnection.connect(db_url, autocommit=True) as producer,
        ):
            # Only a queue some session waits for is notified: an empty listening claim says so.
            key = await pgq_aio.session_key(listening)
            await listening.execute("set pgq.listening = on")
            assert await pgq_aio.claim(listening, "client", 1, owner=key) == []

            async def produce() -> None:  # until the listener has heard one (LISTEN happens lazily)
                while True:
                    await asyncio.sleep(0.1)
                    await pgq_aio.enqueue(producer, "other", {})
                    await pgq_aio.enqueue(producer, "client", {})

            task = asyncio.create_task(produce())
            try:
                return await anext(await pgq_aio.listen(listening, ["client"], timeout=10), None)
            finally:
                task.cancel()

    assert asyncio.run(scenario()) == "client"


def test_async_bad_input_raises_a_psycopg_error_with_the_documented_sqlstate(db_url: str) -> None:
    async def scenario() -> list[str | None]:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
            states: list[str | None] = []
            for call in (
                pgq_aio.enqueue(conn, "", {}),
                pgq_aio.enqueue(conn, "ok", "\u0000"),
                pgq_aio.claim(conn, "ok", 0),
                pgq_aio.cancel(conn, 987_654_321),
                pgq_aio.complete(conn, None, None),  # type: ignore[arg-type]
            ):
                try:
                    await call
                    states.append("no error")
                except psycopg.Error as error:
                    states.append(error.sqlstate)
            return states

    assert asyncio.run(scenario()) == ["22023", "22P05", "22023", "P0002", "22004"]


def test_complete_and_claim_finishes_the_old_jobs_and_claims_new_ones_in_one_transaction(
    conn: psycopg.Connection,
) -> None:
    pgq_client.enqueue_many(conn, "cycle", [1, 2, 3, 4, 5])
    first = pgq_client.claim(conn, "cycle", 2)
    done, nxt = pgq_client.complete_and_claim(conn, first, "cycle", 2)
    assert sorted(done) == sorted(j.id for j in first)
    assert sorted(j.payload for j in nxt) == [3, 4]
    assert conn.execute("select count(*) from q_data.job where state = 'r'").fetchone()[0] == 2
    # One transaction: when the claim fails, the completes are rolled back with it.
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        pgq_client.complete_and_claim(conn, nxt, "cycle", 0)
    assert conn.execute("select count(*) from q_data.job where state = 'r'").fetchone()[0] == 2
    assert pgq_client.complete_and_claim(conn, [], "nothing-here", 5) == ([], [])


def test_aio_complete_and_claim_matches_the_sync_one(db_url: str) -> None:
    async def go() -> tuple[list[int], list[Any]]:
        async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as aconn:
            await pgq_aio.enqueue_many(aconn, "acycle", [1, 2])
            first = await pgq_aio.claim(aconn, "acycle", 1)
            return await pgq_aio.complete_and_claim(aconn, first, "acycle", 1)

    done, nxt = asyncio.run(go())
    assert len(done) == 1 and [j.payload for j in nxt] == [2]


def test_id_and_token_arrays_sent_in_binary_carry_small_and_large_ids_alike(
    new_database: Callable[[], str],
) -> None:
    # The batch calls send ids and tokens in binary (_queries.py): psycopg types a list of small
    # ints as smallint[] and one with an id past 2**31 as bigint[]; both must reach every call.
    url = new_database()
    migrations.upgrade(url)
    with psycopg.connect(url, autocommit=True) as conn:
        small = pgq_client.enqueue_many(conn, "wire", [1, 2, 3])
        conn.execute("select setval('q_data.job_id_seq', 3000000000)")
        large = pgq_client.enqueue_many(conn, "wire", [4, 5, 6])
        assert max(small) < 2**15 and min(large) > 2**31
        jobs = pgq_client.claim(conn, "wire", 6)
        assert [j.id for j in jobs] == small + large
        assert pgq_client.heartbeat_many(conn, jobs) == [Outcome(j.id, "running") for j in jobs]
        assert sorted(pgq_client.release_many(conn, jobs[:1] + jobs[-1:])) == [small[0], large[-1]]
        outcomes = pgq_client.fail_many(conn, [(jobs[1], "boom"), (jobs[3], "bang")])
        assert [(o.id, o.status) for o in outcomes] == [(small[1], "retry"), (large[0], "retry")]
        done, nxt = pgq_client.complete_and_claim(conn, [jobs[2], jobs[4]], "wire", 10)
        assert sorted(done) == [small[2], large[1]]
        assert sorted(j.id for j in nxt) == [small[0], large[-1]]  # released, due again
        assert sorted(pgq_client.complete_many(conn, nxt)) == [small[0], large[-1]]
        assert pgq_client.complete_many(conn, []) == []
        left = conn.execute("select array_agg(id order by id) from q_data.job").fetchone()[0]
        assert left == [small[1], large[0]]  # the two failures, waiting for their retry
