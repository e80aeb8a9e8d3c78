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

import re
import sys
from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, TypeGuard, cast, overload

try:
    from sqlalchemy import bindparam, text
    from sqlalchemy.dialects.postgresql import ARRAY
    from sqlalchemy.engine import Connection
    from sqlalchemy.orm import Session
    from sqlalchemy.sql.elements import TextClause
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
    from typing_extensions import Unpack

SyncBind = Session | Connection
AsyncBind: TypeAlias = "AsyncSession | AsyncConnection"


class EnqueueOptions(TypedDict, total=False):
    """The keyword arguments of :func:`enqueue`, as :func:`pgq_client.enqueue` takes them."""

    run_at: datetime | None
    priority: int
    max_attempts: int | None
    dedup_key: str | None
    concurrency_key: str | None  # flow control (revision 0005)


class EnqueueManyOptions(TypedDict, total=False):
    """The keyword arguments of :func:`enqueue_many`, as :func:`pgq_client.enqueue_many` takes them."""

    run_at: datetime | None
    priority: int
    max_attempts: int | None
    dedup_keys: Sequence[str | None] | None
    idempotency_key: str | None
    concurrency_key: str | None  # flow control (revision 0005): one key for the call
    concurrency_keys: Sequence[str | None] | None  # or one per payload


def _is_async(bind: object) -> TypeGuard[AsyncSession | AsyncConnection]:
    """An AsyncSession/AsyncConnection? (If sqlalchemy.ext.asyncio was never imported, it cannot be one.)"""
    asyncio_ext = sys.modules.get("sqlalchemy.ext.asyncio")
    return asyncio_ext is not None and isinstance(bind, (asyncio_ext.AsyncSession, asyncio_ext.AsyncConnection))


# The bind types of every parameter the statements use; each statement takes the ones it names.
_TYPES: dict[str, Any] = {
    "queue": String, "payload": String, "payloads": String, "run_at": DateTime(timezone=True),
    "priority": Integer, "max_attempts": Integer, "dedup_key": String, "dedup_keys": ARRAY(String),
    "idempotency_key": String, "concurrency_key": String, "concurrency_keys": ARRAY(String),
}


def _statement(query: str) -> TextClause:
    named = set(re.findall(r":(\w+)", query))
    return text(query).bindparams(*(bindparam(name, type_=kind) for name, kind in _TYPES.items() if name in named))


# Each form of the thin client's statements, with :name parameters (pgq_client._queries.named).
_STATEMENTS = {statement: _statement(sql.named(statement))
               for forms in (sql.ENQUEUE_FORMS, sql.ENQUEUE_MANY_FORMS) for statement, _ in forms}


def _call(forms: sql.Forms, params: dict[str, Any],
          optional: dict[str, Any]) -> tuple[TextClause, dict[str, Any]]:
    """The oldest form that sends the optional arguments given (as the thin client picks it), and its parameters."""
    statement, names = sql.oldest_form(forms, optional)
    return _STATEMENTS[statement], {**params, **{name: optional[name] for name in names}}


def _listed(values: Sequence[str | None] | None) -> list[str | None] | None:
    return None if values is None else list(values)


def _one(queue: str, payload: Any, *, run_at: datetime | None = None, priority: int = 0,
         max_attempts: int | None = None, dedup_key: str | None = None,
         concurrency_key: str | None = None) -> tuple[TextClause, dict[str, Any]]:
    """The statement and parameters of one enqueue (an unknown keyword is a TypeError here)."""
    params = dict(queue=queue, payload=dumps(payload), run_at=run_at, priority=priority,
                  max_attempts=max_attempts, dedup_key=dedup_key)
    return _call(sql.ENQUEUE_FORMS, params, {"concurrency_key": concurrency_key})


def _many(queue: str, payloads: Sequence[Any], *, run_at: datetime | None = None, priority: int = 0,
          max_attempts: int | None = None, dedup_keys: Sequence[str | None] | None = None,
          idempotency_key: str | None = None, concurrency_key: str | None = None,
          concurrency_keys: Sequence[str | None] | None = None) -> tuple[TextClause, dict[str, Any]]:
    """The statement and parameters of one enqueue_many (an unknown keyword is a TypeError here)."""
    params = dict(queue=queue, payloads=dumps(list(payloads)), run_at=run_at, priority=priority,
                  max_attempts=max_attempts)
    return _call(sql.ENQUEUE_MANY_FORMS, params, {
        "dedup_keys": _listed(dedup_keys), "idempotency_key": idempotency_key,
        "concurrency_key": concurrency_key, "concurrency_keys": _listed(concurrency_keys)})


@overload
def enqueue(bind: SyncBind, queue: str, payload: Any, **options: Unpack[EnqueueOptions]) -> int: ...
@overload
def enqueue(bind: AsyncBind, queue: str, payload: Any, **options: Unpack[EnqueueOptions]) -> Awaitable[int]: ...
def enqueue(bind: SyncBind | AsyncBind, queue: str, payload: Any,
            **options: Unpack[EnqueueOptions]) -> int | Awaitable[int]:
    """Add a job inside the session's (or connection's) current transaction; returns its id.

    Options (:class:`EnqueueOptions`): ``run_at``, ``priority``, ``max_attempts``, ``dedup_key``,
    ``concurrency_key``, as in :func:`pgq_client.enqueue`. Given an AsyncSession or
    AsyncConnection, returns an awaitable of the id.
    """
    statement, params = _one(queue, payload, **options)
    if _is_async(bind):
        return _scalar_on(bind, statement, params)
    return int(cast(SyncBind, bind).execute(statement, params).scalar_one())


@overload
def enqueue_many(bind: SyncBind, queue: str, payloads: Sequence[Any],
                 **options: Unpack[EnqueueManyOptions]) -> list[int]: ...
@overload
def enqueue_many(bind: AsyncBind, queue: str, payloads: Sequence[Any],
                 **options: Unpack[EnqueueManyOptions]) -> Awaitable[list[int]]: ...
def enqueue_many(bind: SyncBind | AsyncBind, queue: str, payloads: Sequence[Any],
                 **options: Unpack[EnqueueManyOptions]) -> list[int] | Awaitable[list[int]]:
    """Add one job per payload in one statement, inside the current transaction; ids in payload order.

    Options (:class:`EnqueueManyOptions`): ``run_at``, ``priority``, ``max_attempts``,
    ``dedup_keys`` (one per payload), ``idempotency_key`` (the whole call: a retry with the same key
    returns the first call's ids), ``concurrency_key`` / ``concurrency_keys``, as in
    :func:`pgq_client.enqueue_many`. Given an AsyncSession or AsyncConnection, returns an awaitable
    of the ids.
    """
    statement, params = _many(queue, payloads, **options)
    if _is_async(bind):
        return _scalars_on(bind, statement, params)
    return [int(i) for i in cast(SyncBind, bind).execute(statement, params).scalars()]


async def _scalar_on(bind: AsyncBind, statement: TextClause, params: dict[str, Any]) -> int:
    return int((await bind.execute(statement, params)).scalar_one())


async def _scalars_on(bind: AsyncBind, statement: TextClause, params: dict[str, Any]) -> list[int]:
    return [int(i) for i in (await bind.execute(statement, params)).scalars()]


async def enqueue_async(bind: AsyncBind, queue: str, payload: Any, **options: Unpack[EnqueueOptions]) -> int:
    """:func:`enqueue` on an AsyncSession or AsyncConnection, awaited."""
    return await _scalar_on(bind, *_one(queue, payload, **options))


async def enqueue_many_async(bind: AsyncBind, queue: str, payloads: Sequence[Any],
                             **options: Unpack[EnqueueManyOptions]) -> list[int]:
    """:func:`enqueue_many` on an AsyncSession or AsyncConnection, awaited."""
    return await _scalars_on(bind, *_many(queue, payloads, **options))


__all__ = ["EnqueueManyOptions", "EnqueueOptions", "enqueue", "enqueue_async", "enqueue_many", "enqueue_many_async"]
