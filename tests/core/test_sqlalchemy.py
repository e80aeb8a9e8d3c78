"""pgq_client.sqlalchemy: enqueue inside a Session/Connection's transaction, and their asyncio twins."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from pgq_client.sqlalchemy import enqueue, enqueue_async, enqueue_many, enqueue_many_async
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, create_async_engine
from sqlalchemy.orm import Session


def jobs(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
    return conn.execute("select queue_id is not null, payload from q_data.job order by id").fetchall()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    made = create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(db_url))
    yield made
    made.dispose()


@pytest.fixture
def async_engine(db_url: str) -> AsyncEngine:
    return create_async_engine("postgresql+psycopg://",
                               async_creator=lambda: psycopg.AsyncConnection.connect(db_url))


def test_a_session_enqueue_commits_and_rolls_back_with_the_session(engine: Engine,
                                                                   conn: psycopg.Connection[Any]) -> None:
    conn.execute("create table orders (id int primary key)")
    with Session(engine) as session, session.begin():
        session.execute(text("insert into orders values (1)"))
        job = enqueue(session, "emails", {"order": 1, "at": datetime(2026, 1, 1, tzinfo=timezone.utc)}, priority=5)
        assert isinstance(job, int)
    with pytest.raises(RuntimeError), Session(engine) as session, session.begin():
        session.execute(text("insert into orders values (2)"))
        enqueue(session, "emails", {"order": 2})
        raise RuntimeError("rolled back")
    with engine.begin() as connection:
        ids = enqueue_many(connection, "emails", [{"n": Decimal("1.5")}, {"n": 2}])
    assert len(ids) == 2 and ids == sorted(ids)
    assert [p for _, p in jobs(conn)] == [{"order": 1, "at": "2026-01-01T00:00:00+00:00"}, {"n": "1.5"}, {"n": 2}]
    assert conn.execute("select array_agg(id) from orders").fetchone() == ([1],)


def test_an_async_session_and_connection_enqueue_when_awaited(async_engine: AsyncEngine,
                                                              conn: psycopg.Connection[Any]) -> None:
    """The bug: enqueue(AsyncSession) raised "'coroutine' object has no attribute 'scalar_one'"."""
    conn.execute("create table orders (id int primary key)")

    async def go() -> list[int]:
        made = []
        async with AsyncSession(async_engine) as session, session.begin():
            await session.execute(text("insert into orders values (7)"))
            made.append(await enqueue(session, "emails", {"order": 7}))
            made.extend(await enqueue_many(session, "emails", [{"order": 71}, {"order": 72}]))
        try:
            async with AsyncSession(async_engine) as session, session.begin():
                await session.execute(text("insert into orders values (8)"))
                await enqueue_async(session, "emails", {"order": 8})
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        async with async_engine.begin() as connection:
            made.append(await enqueue_async(connection, "emails", {"price": Decimal("3.10")}))
            made.extend(await enqueue_many_async(connection, "emails", [{"n": 1}]))
        await async_engine.dispose()
        return made

    made = asyncio.run(go())
    assert len(made) == 5
    assert [p for _, p in jobs(conn)] == [{"order": 7}, {"order": 71}, {"order": 72}, {"price": "3.10"}, {"n": 1}]
    assert conn.execute("select array_agg(id) from orders").fetchone() == ([7],)


def test_concurrency_keys_and_dedup_keys_through_sqlalchemy(engine: Engine, async_engine: AsyncEngine,
                                                            conn: psycopg.Connection[Any]) -> None:
    conn.execute("select q.configure('tenants', key_concurrency => 1)")
    with Session(engine) as session, session.begin():
        first = enqueue(session, "tenants", {"n": 1}, concurrency_key="acme")
        same = enqueue_many(session, "tenants", [{"n": 2}, {"n": 3}], concurrency_key="acme")
        mixed = enqueue_many(session, "tenants", [{"n": 4}, {"n": 5}], concurrency_keys=["globex", None],
                             dedup_keys=["d4", None])

    async def go() -> list[int]:
        async with async_engine.begin() as connection:
            made = [await enqueue_async(connection, "tenants", {"n": 6}, concurrency_key="globex")]
            made += await enqueue_many_async(connection, "tenants", [{"n": 7}], concurrency_keys=["initech"])
        await async_engine.dispose()
        return made

    later = asyncio.run(go())
    rows = dict(conn.execute("select id, coalesce(concurrency_key, '-') || ':' || state::text from "
                             "q_data.job").fetchall())
    assert [rows[i] for i in [first, *same, *mixed, *later]] == [
        "acme:w", "acme:h", "acme:h", "globex:w", "-:w", "globex:h", "initech:w"]
    assert conn.execute("select dedup_key from q_data.job where id = %s", (mixed[0],)).fetchone() == ("d4",)
    with pytest.raises(TypeError, match="concurency_key"), Session(engine) as session:
        enqueue(session, "tenants", {}, concurency_key="typo")  # type: ignore[call-overload]
