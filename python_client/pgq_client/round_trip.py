"""One round trip of the claim loop: the outcomes of finished jobs, released claims and the next
claim, pipelined in one network round trip and one transaction (one commit instead of several).

Same SQL as the thin client (:mod:`pgq_client.statements`); the thin functions
fetch each result at once, which would cost a round trip per statement.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, AbstractContextManager, nullcontext
from datetime import timedelta
from typing import Any

import psycopg
from psycopg.rows import class_row

from . import statements as sql
from .jobs import Job, Outcome
from .ledger import COMPLETE, DEAD, FAIL, Answer, Round


def _statements(rnd: Round, owner: int, lease: timedelta | None) -> list[tuple[str, str, tuple[Any, ...]]]:
    """(what, sql, params) in sending order."""
    out: list[tuple[str, str, tuple[Any, ...]]] = []
    done = rnd.of(COMPLETE)
    if done:
        out.append(("complete", sql.COMPLETE_MANY, ([r.ctx.id for r in done], [r.ctx.token for r in done])))
    failed = rnd.of(FAIL)
    if failed:
        params = ([r.ctx.id for r in failed], [r.ctx.token for r in failed], [r.error for r in failed], None)
        out.append(("fail", sql.FAIL_MANY, params))
    for r in rnd.of(DEAD):
        out.append((f"dead:{r.ctx.id}", sql.FAIL, (r.ctx.id, r.ctx.token, r.error, None, False)))
    if rnd.releases:
        out.append(("release", sql.RELEASE_MANY, ([c.id for c in rnd.releases], [c.token for c in rnd.releases])))
    if rnd.claim is not None:
        queue, n, _ = rnd.claim
        out.append(("claim", sql.CLAIM, (queue, n, lease, owner)))
    return out


def _row_factory(what: str) -> Any:
    if what == "claim":
        return class_row(Job)
    if what == "fail":
        return class_row(Outcome)
    return None


def _read(answer: Answer, what: str, rows: list[Any]) -> None:
    if what == "complete":
        answer.completed = {int(r[0]) for r in rows}
    elif what == "fail":
        answer.failed.update({o.id: o.status for o in rows})
    elif what.startswith("dead:"):
        answer.failed[int(what[5:])] = str(rows[0][0])
    elif what == "release":
        answer.released = {int(r[0]) for r in rows}
    elif what == "claim":
        answer.claimed = rows


def send(conn: psycopg.Connection[Any], rnd: Round, *, owner: int, lease: timedelta | None) -> Answer:
    """Send a round on an autocommit connection and read the answers."""
    plan = _statements(rnd, owner, lease)
    answer = Answer()
    cursors = []
    pipeline: AbstractContextManager[Any] = conn.pipeline() if len(plan) > 1 else nullcontext()
    with pipeline:
        for what, query, params in plan:
            factory = _row_factory(what)
            cur = conn.cursor(row_factory=factory) if factory else conn.cursor()
            cur.execute(query, params)
            cursors.append((what, cur))
    for what, cur in cursors:
        _read(answer, what, cur.fetchall())
    return answer


async def send_async(
    conn: psycopg.AsyncConnection[Any], rnd: Round, *, owner: int, lease: timedelta | None
) -> Answer:
    """The asyncio twin of :func:`send`."""
    plan = _statements(rnd, owner, lease)
    answer = Answer()
    cursors = []
    pipeline: AbstractAsyncContextManager[Any] = conn.pipeline() if len(plan) > 1 else nullcontext()
    async with pipeline:
        for what, query, params in plan:
            factory = _row_factory(what)
            cur = conn.cursor(row_factory=factory) if factory else conn.cursor()
            await cur.execute(query, params)
            cursors.append((what, cur))
    for what, cur in cursors:
        _read(answer, what, await cur.fetchall())
    return answer

