"""One round trip of a claim loop: the outcomes of finished jobs, released claims and the next
claim, in one statement, so one network round trip and one transaction (one commit).

The statement calls the same SQL functions as the thin client (``q.complete_many``,
``q.fail_many``, ``q.fail``, ``q.release_many``, ``q.claim``), one ``UNION ALL``
branch each, in that order (PostgreSQL runs the branches of an Append one after
the other), and returns one row per result, tagged with its kind. One statement
costs the client about half the CPU of the same calls in pipeline mode, and
the server one Parse/Bind/Execute instead of several. The branches present
vary with the round; each shape is prepared once per connection (not behind
PgBouncer, where prepared statements are off).
"""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from typing import Any

import psycopg

from .jobs import Job
from .ledger import COMPLETE, DEAD, FAIL, Answer, Round

# Every branch returns: kind, id, status, then the q.claimed_job columns after id.
_TAIL = "null::text, null::jsonb, null::integer, null::integer, null::integer, null::uuid, null::timestamptz"
_BRANCHES = {
    "complete": f"select 'c'::text, id, null::text, {_TAIL} from q.complete_many(ids => %s, tokens => %s) as id",
    "fail": f"select 'f', f.id, f.status, {_TAIL}"
            " from q.fail_many(ids => %s, tokens => %s, errors => %s, retry_in => null) f",
    "dead": f"select 'f', d.id, q.fail(id => d.id, token => d.token, error => d.error, retry_in => null,"
            f" retryable => false), {_TAIL}"
            " from unnest(%s::bigint[], %s::uuid[], %s::text[]) as d(id, token, error)",
    "release": f"select 'r', id, null::text, {_TAIL} from q.release_many(ids => %s, tokens => %s) as id",
    "claim": "select 'j', c.id, null::text, c.queue, c.payload, c.attempt, c.crashes, c.priority, c.token,"
             " c.lease_until from q.claim(queue => %s, n => %s, lease => %s, owner => %s) c",
}
_ORDER = ("complete", "fail", "dead", "release", "claim")


@lru_cache(maxsize=64)
def _statement(parts: tuple[str, ...]) -> str:
    return " union all ".join(_BRANCHES[p] for p in parts)


def _build(rnd: Round, lease: timedelta | None) -> tuple[str, list[Any]] | None:
    """The round's statement and its parameters, or None when there is nothing to send."""
    parts: dict[str, tuple[Any, ...]] = {}
    done = rnd.of(COMPLETE)
    if done:
        parts["complete"] = ([r.ctx.id for r in done], [r.ctx.token for r in done])
    failed = rnd.of(FAIL)
    if failed:
        parts["fail"] = ([r.ctx.id for r in failed], [r.ctx.token for r in failed], [r.error for r in failed])
    dead = rnd.of(DEAD)
    if dead:
        parts["dead"] = ([r.ctx.id for r in dead], [r.ctx.token for r in dead], [r.error for r in dead])
    if rnd.releases:
        parts["release"] = ([c.id for c in rnd.releases], [c.token for c in rnd.releases])
    if rnd.claim is not None:
        queue, n, _ = rnd.claim
        parts["claim"] = (queue, n, lease, rnd.owner)
    if not parts:
        return None
    names = tuple(p for p in _ORDER if p in parts)
    return _statement(names), [v for p in names for v in parts[p]]


def _read(rows: list[tuple[Any, ...]]) -> Answer:
    answer = Answer()
    for row in rows:
        kind = row[0]
        if kind == "j":
            answer.claimed.append(Job(row[1], *row[3:]))
        elif kind == "c":
            answer.completed.add(row[1])
        elif kind == "f":
            answer.failed[row[1]] = row[2]
        else:
            answer.released.add(row[1])
    return answer


def send(conn: psycopg.Connection[Any], rnd: Round, *, lease: timedelta | None) -> Answer:
    """Send a round on an autocommit connection (one statement, one transaction) and read the answer."""
    built = _build(rnd, lease)
    if built is None:
        return Answer()
    with conn.cursor() as cur:
        cur.execute(*built)
        return _read(cur.fetchall())


async def send_async(conn: psycopg.AsyncConnection[Any], rnd: Round, *, lease: timedelta | None) -> Answer:
    """The asyncio twin of :func:`send`."""
    built = _build(rnd, lease)
    if built is None:
        return Answer()
    async with conn.cursor() as cur:
        await cur.execute(*built)
        return _read(await cur.fetchall())
