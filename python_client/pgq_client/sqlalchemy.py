"""Transactional enqueue through SQLAlchemy: the job exists exactly when your transaction commits.

    from pgq_client.sqlalchemy import enqueue

    with Session(engine) as session, session.begin():
        session.add(Order(id=7))
        enqueue(session, "emails", {"order": 7})
    # committed: the order and its job; rolled back: neither.

Works with a ``Session`` or a ``Connection`` (sync), on any PostgreSQL
driver SQLAlchemy supports; the statement runs on the session's own
connection inside its current transaction and never commits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

try:
    from sqlalchemy import bindparam, text
    from sqlalchemy.dialects.postgresql import JSONB
    from sqlalchemy.engine import Connection
    from sqlalchemy.orm import Session
    from sqlalchemy.types import DateTime, Integer, String
except ModuleNotFoundError as exc:  # pragma: no cover - tests/packaging/ runs it without the extra
    if exc.name != "sqlalchemy":
        raise
    raise ModuleNotFoundError("pgq_client.sqlalchemy needs the 'sqlalchemy' extra (sqlalchemy is not installed):"
                              " pip install 'pgq-client[sqlalchemy]'", name=exc.name) from exc

from . import _queries as sql

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
    bindparam("payloads", type_=JSONB),
    bindparam("run_at", type_=DateTime(timezone=True)),
    bindparam("priority", type_=Integer),
    bindparam("max_attempts", type_=Integer),
)


def enqueue(
    bind: Session | Connection,
    queue: str,
    payload: Any,
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
    dedup_key: str | None = None,
) -> int:
    """Add a job inside the session's (or connection's) current transaction; returns its id."""
    params = dict(queue=queue, payload=json.dumps(payload), run_at=run_at, priority=priority,
                  max_attempts=max_attempts, dedup_key=dedup_key)
    return int(bind.execute(_ENQUEUE, params).scalar_one())


def enqueue_many(
    bind: Session | Connection,
    queue: str,
    payloads: Sequence[Any],
    *,
    run_at: datetime | None = None,
    priority: int = 0,
    max_attempts: int | None = None,
) -> list[int]:
    """Add one job per payload in one statement, inside the current transaction; ids in payload order."""
    params = dict(queue=queue, payloads=list(payloads), run_at=run_at, priority=priority, max_attempts=max_attempts)
    return [int(i) for i in bind.execute(_ENQUEUE_MANY, params).scalars()]
