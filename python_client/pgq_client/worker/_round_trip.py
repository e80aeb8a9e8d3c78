"""One round trip of a claim loop, built and read without I/O.

A round carries the outcomes of finished jobs, released claims and the next
claim in one statement (the UNION ALL of :data:`pgq_client._queries.ROUND_BRANCHES`,
the same SQL functions the thin client calls), so one network round trip and
one transaction (one commit). The branches present vary with the round; each
shape is prepared once per connection (not behind PgBouncer, where prepared
statements are off). The worker sends what :func:`build` returns and hands
the rows, read as dicts by column name, to :func:`read`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from psycopg.types.json import Jsonb

from .. import _queries as sql
from .._error_text import clean
from ..records import FailStatus, Job
from ._ledger import Answer, ResultKind, Round

_JOB_COLUMNS = ("id", "queue", "payload", "attempt", "crashes", "priority", "token", "lease_until")


def _as_is(text: Any) -> str:
    return str(text)


def refuse_results(rnd: Round, exc: Exception) -> int:
    """A round refused because a result is over its queue's max_result_size (54000, naming the job):
    that job is failed instead (its handler's error says why), so the round can go again.
    Returns how many results were turned into failures (0: the error was something else)."""
    if getattr(exc, "sqlstate", None) != "54000":
        return 0
    message = str(getattr(getattr(exc, "diag", None), "message_primary", "") or exc)
    refused = 0
    for r in rnd.of(ResultKind.COMPLETE):
        if r.value is not None and message.startswith(f"result of job {r.ctx.id} "):
            r.kind, r.value, r.summary = ResultKind.FAIL, None, "result too large"
            r.error = f"the handler's result could not be stored: {message}"
            refused += 1
    return refused


@lru_cache(maxsize=64)
def _statement(parts: tuple[str, ...]) -> str:
    return sql.round_statement(parts)


def build(rnd: Round) -> tuple[str, list[Any]] | None:
    """The round's statement and its parameters, or None when there is nothing to send."""
    parts: dict[str, tuple[Any, ...]] = {}
    done = rnd.of(ResultKind.COMPLETE)
    if done and any(r.value is not None for r in done):
        # Results (revision 0009): JSON text the worker encoded already, sent as is.
        values = [None if r.value is None else Jsonb(r.value, dumps=_as_is) for r in done]
        parts["complete_results"] = ([r.ctx.id for r in done], [r.ctx.token for r in done], values)
    elif done:
        parts["complete"] = ([r.ctx.id for r in done], [r.ctx.token for r in done])
    failed = rnd.of(ResultKind.FAIL)
    if failed:
        parts["fail"] = ([r.ctx.id for r in failed], [r.ctx.token for r in failed], [clean(r.error) for r in failed])
    dead = rnd.of(ResultKind.DEAD)
    if dead:
        parts["dead"] = ([r.ctx.id for r in dead], [r.ctx.token for r in dead], [clean(r.error) for r in dead])
    if rnd.releases:
        parts["release"] = ([c.id for c in rnd.releases], [c.token for c in rnd.releases])
    if rnd.claim is not None:
        parts["claim"] = (rnd.claim.queue, rnd.claim.n, rnd.claim.lease, rnd.owner)
        parts["blocked"] = ()
        if rnd.listening:
            parts["listening"] = ()
            parts["waiting"] = ()
    if not parts:
        return None
    names = tuple(p for p in sql.ROUND_ORDER if p in parts)
    return _statement(names), [v for p in names for v in parts[p]]


def read(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Answer:
    """The database's answer from the round's rows, each column found by its name.

    The names are looked up once per round (``columns`` is the cursor's
    description), not per row: a dict per row cost ~1.5 us of a claimed job's
    ~30 us of client CPU.
    """
    at = {name: i for i, name in enumerate(columns)}
    kind_, id_, status_ = at["kind"], at["id"], at["status"]
    job_ = [at[c] for c in _JOB_COLUMNS]
    answer = Answer()
    for row in rows:
        kind = row[kind_]
        if kind == "j":
            answer.claimed.append(Job(*[row[i] for i in job_]))
        elif kind == "c":
            answer.completed.add(row[id_])
        elif kind == "f":
            answer.failed[row[id_]] = FailStatus(row[status_])
        elif kind == "b":
            limit, _, retry_in = str(row[status_]).partition(" ")
            answer.blocked = limit
            answer.retry_in = float(retry_in) if retry_in else None
        elif kind == "w":
            answer.waiting = True
        else:
            answer.released.add(row[id_])
    return answer
