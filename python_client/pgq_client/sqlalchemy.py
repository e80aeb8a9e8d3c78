"""Transactional enqueue through SQLAlchemy: the job exists exactly when your transaction commits.

    from pgq_client.sqlalchemy import enqueue

    with Session(engine) as session, session.begin():
        session.add(Order(id=7))
        enqueue(session, "emails", {"order": 7})
    # committed: the order and its job; rolled back: neither.

    async with AsyncSession(async_engine) as session, session.begin():
        session.add(Order(id=8))
        await enqueue(session, "emails", {"order": 8})   # the same function, awaited

Works with a ``Session`` or a ``Connection``, and with their asyncio twins ``AsyncSession`` and
``AsyncConnection`` (then the call returns an awaitable; ``enqueue_async`` says so in its name),
on any PostgreSQL driver SQLAlchemy supports. The statement runs on the session's own
connection inside its current transaction and never commits. Payloads are encoded by
:mod:`pgq_client.payloads` (datetime, Decimal, UUID, ... and your registered types).
Needs the ``sqlalchemy`` extra.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard, cast, overload

try:
    from sqlalchemy import bindparam, text
    from sqlalchemy.engine import Connection
    from sqlalchemy.orm import Session
    from sqlalchemy.types import DateTime, Integer, String
except ModuleNotFoundError as exc:  # pragma: no cover - tests/packaging/ runs it without the extra
    if exc.name != "sqlalchemy":
        raise
    raise ModuleNotFoundError("pgq_client.sqlalchemy needs the 'sqlalchemy' extra (sqlalchemy is not installed):"
                              " pip install 'pgq-client[sqlalchemy]'", name=exc.name) from exc

from . import _queries as sql
from .payloads import dumps

if TYPE_CHECKING:
    # Not imported at run time: sqlalchemy.ext.asyncio needs greenlet, which sync users may not have.
    from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

SyncBind = Session | Connection
AsyncBind: TypeAlias = "AsyncSession | AsyncConnection"


def _is_async(bind: object) -> TypeGuard[AsyncSession | AsyncConnection]:
    """An AsyncSession/AsyncConnection? (If sqlalchemy.ext.asyncio was never imported, it cannot be one.)"""
    asyncio_ext = sys.modules.get("sqlalchemy.ext.asyncio")
    return asyncio_ext is not None and isinstance(bind, (asyncio_ext.AsyncSession, asyncio_ext.AsyncConnection))

_ENQUEUE = text(sql.SA_ENQUEUE).bindparams(
    bindparam("queue", type_=String),
    bindparam("payload", type_=String),
    bindparam("run_at", type_=DateTime(timezone=True)),
    bindparam("priority", type_=Integer),
    bindparam("max_attempts", type_=Integer),
    bindparam("dedup_key", type_=String),
)
_ENQUEUE_MANY = text(sql.SA_ENQUEUE_MANY).bindparams(
    bindparam("queue", type_=String),
    bindparam("payloads", type_=String),
    bindparam("run_at", type_=DateTime(timezone=True)),
    bindparam("priority", type_=Integer),
    bindparam("max_attempts", type_=Integer),
)


def _enqueue_params(queue: str, payload: Any, run_at: datetime | None, priority: int, max_attempts: int | None,
                    dedup_key: str | None) -> dict[str, Any]:
    return dict(queue=queue, payload=dumps(payload), run_at=run_at, priority=priority,
                max_attempts=max_attempts, dedup_key=dedup_key)


def _many_params(queue: str, payloads: Sequence[Any], run_at: datetime | None, priority: int,
                 max_attempts: int | None) -> dict[str, Any]:
    return dict(queue=queue, payloads=dumps(list(payloads)), run_at=run_at, priority=priority,
                max_attempts=max_attempts)


@overload
def enqueue(bind: SyncBind, queue: str, payload: Any, *, run_at: datetime | None = None, priority: int = 0,
            max_attempts: int | None = None, dedup_key: str | None = None) -> int: ...
@overload
def enqueue(bind: AsyncBind, queue: str, payload: Any, *, run_at: datetime | None = None, priority: int = 0,
            max_attempts: int | None = None, dedup_key: str | None = None) -> Awaitable[int]: ...
def enqueue(
    bind: SyncBind | AsyncBind,
    queue: str,
    payload: Any,
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    dedup_key: str | None = None,
) -> int | Awaitable[int]:
    """Add a job inside the session's (or connection's) current transaction; returns its id.

    Given an AsyncSession or AsyncConnection, returns an awaitable of the id.
    """
    params = _enqueue_params(queue, payload, run_at, priority, max_attempts, dedup_key)
    if _is_async(bind):
        return _enqueue_on(bind, params)
    return int(cast(SyncBind, bind).execute(_ENQUEUE, params).scalar_one())


async def _enqueue_on(bind: AsyncBind, params: dict[str, Any]) -> int:
    return int((await bind.execute(_ENQUEUE, params)).scalar_one())


@overload
def enqueue_many(bind: SyncBind, queue: str, payloads: Sequence[Any], *, run_at: datetime | None = None,
                 priority: int = 0, max_attempts: int | None = None) -> list[int]: ...
@overload
def enqueue_many(bind: AsyncBind, queue: str, payloads: Sequence[Any], *, run_at: datetime | None = None,
                 priority: int = 0, max_attempts: int | None = None) -> Awaitable[list[int]]: ...
def enqueue_many(
    bind: SyncBind | AsyncBind,
    queue: str,
    payloads: Sequence[Any],
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
) -> list[int] | Awaitable[list[int]]:
    """Add one job per payload in one statement, inside the current transaction; ids in payload order.

    Given an AsyncSession or AsyncConnection, returns an awaitable of the ids.
    """
    params = _many_params(queue, payloads, run_at, priority, max_attempts)
    if _is_async(bind):
        return _enqueue_many_on(bind, params)
    return [int(i) for i in cast(SyncBind, bind).execute(_ENQUEUE_MANY, params).scalars()]


async def _enqueue_many_on(bind: AsyncBind, params: dict[str, Any]) -> list[int]:
    return [int(i) for i in (await bind.execute(_ENQUEUE_MANY, params)).scalars()]


async def enqueue_async(
    bind: AsyncBind,
    queue: str,
    payload: Any,
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    dedup_key: str | None = None,
) -> int:
    """:func:`enqueue` on an AsyncSession or AsyncConnection, awaited."""
    return await _enqueue_on(bind, _enqueue_params(queue, payload, run_at, priority, max_attempts, dedup_key))


async def enqueue_many_async(
    bind: AsyncBind,
    queue: str,
    payloads: Sequence[Any],
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
) -> list[int]:
    """:func:`enqueue_many` on an AsyncSession or AsyncConnection, awaited."""
    return await _enqueue_many_on(bind, _many_params(queue, payloads, run_at, priority, max_attempts))


__all__ = ["enqueue", "enqueue_async", "enqueue_many", "enqueue_many_async"]
