"""A Starlette web app that enqueues inside each request's transaction (SQLAlchemy AsyncSession).

    pip install "pgq-client[sqlalchemy,worker,binary]" starlette uvicorn
    export DATABASE_URL=postgresql://app@localhost/app     # pgq installed there: pgq migrate
    uvicorn --app-dir examples web_app:app

    curl -X POST localhost:8000/orders -d '{"email": "ada@example.com", "total": "99.50"}'
    # 201 {"order": 1, "job": 1}: the order row and its confirmation job, committed together
    curl -X POST localhost:8000/orders -d '{"email": "bob@example.com", "total": "-1"}'
    # 422: the insert and the enqueue both rolled back: no order, no job

A worker elsewhere runs the jobs: ``pgq worker web_app:send_confirmation -q order-emails``
(with ``--app-dir``'s folder importable, e.g. from examples/). tests/examples/ runs this app under
uvicorn, posts both requests and checks the database.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

from pgq_client.sqlalchemy import enqueue
from sqlalchemy import text
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

QUEUE = "order-emails"


def sqlalchemy_url(url: str) -> str:
    """DATABASE_URL on the psycopg 3 driver (pgq's SQLAlchemy helpers run on any driver; this app uses psycopg)."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    raise SystemExit("DATABASE_URL must be a postgresql:// URL")


engine = create_async_engine(sqlalchemy_url(os.environ["DATABASE_URL"]))
Session = async_sessionmaker(engine, expire_on_commit=False)


class InvalidOrder(Exception):
    pass


async def create_order(request: Request) -> JSONResponse:
    body = await request.json()
    try:
        async with Session() as session, session.begin():  # one transaction: the order and its job
            order_id = (await session.execute(
                text("insert into example_order (email, total) values (:email, :total) returning id"),
                {"email": body["email"], "total": Decimal(body["total"])},
            )).scalar_one()
            job_id = await enqueue(session, QUEUE, {
                "order": order_id, "to": body["email"], "total": Decimal(body["total"]),
                "placed_at": datetime.now(timezone.utc),   # Decimal and datetime: pgq_client.payloads
            })
            if Decimal(body["total"]) <= 0:
                raise InvalidOrder("total must be positive")  # rolls back the order and the job
    except (InvalidOrder, InvalidOperation, KeyError) as exc:
        return JSONResponse({"error": str(exc) or type(exc).__name__}, status_code=422)
    return JSONResponse({"order": order_id, "job": job_id}, status_code=201)


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


def send_confirmation(payload: dict[str, Any]) -> None:
    """The job's handler, for a worker: ``pgq worker web_app:send_confirmation -q order-emails``."""
    print(f"order {payload['order']}: confirmation to {payload['to']} ({payload['total']})")


@asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with engine.begin() as conn:
        await conn.execute(text("create table if not exists example_order"
                                " (id bigint generated always as identity primary key,"
                                " email text not null, total numeric(12, 2) not null)"))
    yield
    await engine.dispose()


app = Starlette(routes=[Route("/orders", create_order, methods=["POST"]), Route("/health", health)],
                lifespan=lifespan)
