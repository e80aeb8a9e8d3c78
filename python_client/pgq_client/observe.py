"""What pgq's monitoring reads and does: the one module the ``pgq metrics`` exporter and the dashboard call.

Plain functions over the caller's (sync, autocommit) psycopg connection, like
the thin client; the SQL text is in :mod:`pgq_client._queries`. Rows come
back as dicts by column name, so a column a later revision adds (q.stats's
``*_exact`` flags) reaches the pages without a change here.

What the installed revision offers is asked once per connection
(:func:`features`): a function that is missing (older revision) or not
granted to this role is shown as such, never called. Revision 0006
(observability) brings ``q.throughput``, ``q.throughput_totals``,
``q.explain``, ``q.health``, ``q.job_page`` and the bulk admin calls; until
then the job list pages through ``q.jobs`` (see :func:`job_page`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row

from . import _client as calls
from . import _queries as sql

Connection = psycopg.Connection[Any]
Row = dict[str, Any]

STATES = ("waiting", "scheduled", "running", "completed", "dead", "cancelled")
# q.jobs reads at most this many rows per call (its own bound).
JOBS_MAX_ROWS = 10000


@dataclass(frozen=True)
class Features:
    """pgq's functions in this database: name -> may this role call it."""

    functions: dict[str, bool] = field(default_factory=dict)

    def has(self, name: str) -> bool:
        """The function exists (whatever the grants)."""
        return name in self.functions

    def may(self, name: str) -> bool:
        """The function exists and this role may call it."""
        return self.functions.get(name, False)

    @property
    def admin(self) -> bool:
        """May change jobs and queues (pgq_admin): retry, cancel, pause, resume."""
        return all(self.may(n) for n in ("retry", "cancel", "pause", "resume"))


def features(conn: Connection) -> Features:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql.FEATURES)
        return Features({row["proname"]: bool(row["allowed"]) for row in cur.fetchall()})


def bound(conn: Connection, timeout: timedelta) -> None:
    """Every later statement on this connection is cancelled after ``timeout`` (statement_timeout)."""
    conn.execute(sql.STATEMENT_TIMEOUT, (f"{int(timeout.total_seconds() * 1000)}ms",))


def _rows(conn: Connection, query: str, params: tuple[Any, ...] = ()) -> list[Row]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        return cur.fetchall()


# -- reading ------------------------------------------------------------------------------------


def queues(conn: Connection) -> list[Row]:
    """``q.stats()``: per queue paused, waiting, scheduled, running, dead, oldest_waiting (and *_exact if given)."""
    return _rows(conn, sql.STATS_DEFAULT)


def throughput(conn: Connection, since: timedelta = timedelta(hours=1)) -> dict[str, list[Row]]:
    """Per queue, per minute with any outcome: completed, failed, dead (``q.throughput``; check ``features``)."""
    out: dict[str, list[Row]] = {}
    for row in _rows(conn, sql.THROUGHPUT, (since,)):
        out.setdefault(row["queue"], []).append(row)
    return out


def throughput_totals(conn: Connection) -> list[Row]:
    """Per queue, monotonic totals completed, failed, dead (``q.throughput_totals``; check ``features``)."""
    return _rows(conn, sql.THROUGHPUT_TOTALS)


@dataclass(frozen=True)
class Page:
    """One page of the job list: rows newest first, and the id to pass as ``before`` for the next page."""

    rows: list[Row]
    next_before: int | None
    scanned_all: bool  # False: the filter looked at q.jobs's first JOBS_MAX_ROWS rows only


def job_page(conn: Connection, *, queue: str | None = None, state: str | None = None, text: str | None = None,
             before: int | None = None, limit: int = 50) -> Page:
    """Jobs newest first, filtered by queue, state and text (in the payload or the errors), ids below ``before``.

    Keyset paging (``before`` = the last id shown) so a page never counts or
    skips what came before it. Until ``q.job_page`` (revision 0006) is
    installed this reads through ``q.jobs``, which returns at most 10,000 rows
    per call and filters text here: on a large table the text filter sees the
    newest 10,000 jobs of the queue/state only (``scanned_all`` says so).
    """
    if state is not None and state not in STATES:
        raise ValueError(f"state must be one of {', '.join(STATES)}, got {state!r}")
    if not 1 <= limit <= 500:
        raise ValueError(f"limit must be between 1 and 500, got {limit}")
    needle = text.lower() if text else None
    wanted = JOBS_MAX_ROWS if (needle or before is not None) else limit + 1
    rows = _rows(conn, sql.JOBS, (queue, state, None, wanted))
    scanned_all = len(rows) < wanted
    picked: list[Row] = []
    for row in rows:
        if before is not None and row["id"] >= before:
            continue
        if needle and needle not in _haystack(row):
            continue
        picked.append(row)
        if len(picked) > limit:
            break
    more = len(picked) > limit
    picked = picked[:limit]
    return Page(picked, picked[-1]["id"] if more else None, scanned_all or more)


def _haystack(row: Row) -> str:
    return (json.dumps(row.get("payload")) + " " + json.dumps(row.get("errors"))).lower()


def job(conn: Connection, job_id: int) -> Row | None:
    """One job wherever it is (live or in the history), with its payload and every attempt's error."""
    rows = _rows(conn, sql.JOBS, (None, None, job_id, 1))
    return rows[0] if rows else None


def explain(conn: Connection, job_id: int) -> list[Row]:
    """Why the job is not running now, one row per reason (``q.explain``; check ``features``)."""
    return _rows(conn, sql.EXPLAIN, (job_id,))


def health(conn: Connection) -> list[Row]:
    """What keeps a queue fast: vacuum, bloat, the xmin horizon (``q.health``; check ``features``)."""
    return _rows(conn, sql.HEALTH)


def schedules(conn: Connection) -> list[Row]:
    """Every schedule (``q.schedules``, revision 0005; check ``features``)."""
    return _rows(conn, sql.SCHEDULES)


# -- acting (pgq_admin) ---------------------------------------------------------------------------


def retry(conn: Connection, job_id: int) -> None:
    calls.retry(conn, job_id)


def cancel(conn: Connection, job_id: int) -> bool:
    return calls.cancel(conn, job_id)


def pause(conn: Connection, queue: str) -> None:
    calls.pause(conn, queue)


def resume(conn: Connection, queue: str) -> None:
    calls.resume(conn, queue)


def retry_dead(conn: Connection, queue: str, *, limit: int = 1000) -> int:
    """Put up to ``limit`` dead jobs of a queue back (newest first); returns how many.

    Until revision 0006's ``q.retry_dead`` is installed: one ``q.retry`` per
    job of ``q.jobs(state => 'dead')``, in one transaction (all or nothing).
    """
    with conn.transaction():
        dead = _rows(conn, sql.JOBS, (queue, "dead", None, limit))
        for row in dead:
            calls.retry(conn, row["id"])
    return len(dead)
