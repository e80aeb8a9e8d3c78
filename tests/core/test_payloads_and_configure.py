"""Payload encoding (pgq_client.payloads) through every enqueue, and q.configure as a client call."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from enum import Enum
from typing import Any

import psycopg
import pytest
from pgq_client import App, QueueSettings, aio, configure, enqueue, enqueue_many, payloads

WHEN = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)
ID = uuid.UUID("12345678-1234-5678-1234-567812345678")


class Colour(Enum):
    RED = "red"


@dataclass
class Point:
    x: int
    y: int


class Money:
    def __init__(self, amount: Decimal, currency: str) -> None:
        self.amount, self.currency = amount, currency


def stored(conn: psycopg.Connection[Any], job_id: int) -> Any:
    row = conn.execute("select payload from q_data.job where id = %s", (job_id,)).fetchone()
    assert row is not None
    return row[0]


RICH = {"at": WHEN, "day": date(2026, 12, 24), "t": time(8, 15), "price": Decimal("12.50"), "id": ID,
        "colour": Colour.RED, "tags": {"b", "a"}, "point": Point(1, 2), "plain": [1, "x", None, True]}
EXPECTED = {"at": "2026-12-01T09:30:00+00:00", "day": "2026-12-24", "t": "08:15:00", "price": "12.50",
            "id": str(ID), "colour": "red", "tags": ["a", "b"], "point": {"x": 1, "y": 2},
            "plain": [1, "x", None, True]}


def test_datetime_decimal_uuid_and_friends_are_stored_as_json_text(conn: psycopg.Connection[Any]) -> None:
    assert stored(conn, enqueue(conn, "rich", RICH)) == EXPECTED
    ids = enqueue_many(conn, "rich", [RICH, {"n": Decimal("1.000")}])
    assert [stored(conn, i) for i in ids] == [EXPECTED, {"n": "1.000"}]


def test_the_async_client_and_app_tasks_encode_the_same_way(conn: psycopg.Connection[Any]) -> None:
    async def go() -> list[int]:
        async with await psycopg.AsyncConnection.connect(conn.info.dsn, autocommit=True) as aconn:
            return [await aio.enqueue(aconn, "rich", RICH), *(await aio.enqueue_many(aconn, "rich", [RICH]))]

    assert [stored(conn, i) for i in asyncio.run(go())] == [EXPECTED, EXPECTED]
    app = App()
    task = app.task(queue="rich")(lambda payload: None)
    assert stored(conn, task.enqueue(conn, RICH)) == EXPECTED


def test_a_registered_encoder_wins_and_applies_to_subclasses(conn: psycopg.Connection[Any]) -> None:
    class Euro(Money):
        pass

    payloads.register(Money, lambda m: {"amount": str(m.amount), "currency": m.currency})
    try:
        job = enqueue(conn, "money", {"total": Euro(Decimal("9.90"), "EUR")})
        assert stored(conn, job) == {"total": {"amount": "9.90", "currency": "EUR"}}
        payloads.register(Point, lambda p: [p.x, p.y])  # beats the dataclass default
        assert stored(conn, enqueue(conn, "money", Point(3, 4))) == [3, 4]
    finally:
        payloads.unregister(Money)
        payloads.unregister(Point)
    assert payloads.dumps(Point(3, 4)) == '{"x": 3, "y": 4}'


def test_an_unknown_type_raises_naming_it_and_nothing_is_written(conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(TypeError, match=r"test_payloads_and_configure\.Money.*payloads\.register\(Money"):
        enqueue(conn, "money", {"total": Money(Decimal(1), "EUR")})
    with pytest.raises(TypeError, match="Money"):
        enqueue_many(conn, "money", [{"ok": 1}, Money(Decimal(1), "EUR")])
    assert conn.execute("select count(*) from q_data.job").fetchone() == (0,)


def test_configure_changes_only_what_it_is_given_and_returns_every_setting(conn: psycopg.Connection[Any]) -> None:
    first = configure(conn, "mail", lease=timedelta(seconds=30), max_attempts=3)
    assert first == QueueSettings(queue="mail", paused=False, lease=timedelta(seconds=30), max_attempts=3,
                                  max_crashes=3, backoff_base=timedelta(seconds=1), backoff_max=timedelta(hours=1),
                                  keep_completed=False, retention=timedelta(days=7), max_lease=timedelta(hours=1),
                                  keep_results=timedelta(days=1), max_result_size=1048576)
    second = configure(conn, "mail", keep_completed=True)
    assert (second.lease, second.max_attempts, second.keep_completed) == (timedelta(seconds=30), 3, True)

    async def go() -> QueueSettings:
        async with await psycopg.AsyncConnection.connect(conn.info.dsn, autocommit=True) as aconn:
            return await aio.configure(aconn, "mail", retention=timedelta(days=1))

    assert asyncio.run(go()).retention == timedelta(days=1)


def test_configure_refuses_bad_values_with_22023_and_changes_nothing(conn: psycopg.Connection[Any]) -> None:
    configure(conn, "mail", max_attempts=4)
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="max_attempts"):
        configure(conn, "mail", max_attempts=0, lease=timedelta(seconds=9))
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="backoff_max"):
        configure(conn, "mail", backoff_base=timedelta(hours=2))
    after = configure(conn, "mail")
    assert (after.max_attempts, after.lease, after.backoff_base) == (4, timedelta(minutes=5), timedelta(seconds=1))
