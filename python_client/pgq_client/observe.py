"""What pgq's monitoring reads: the one module the ``pgq metrics`` exporter and the dashboard read through.

Read-only: the dashboard's actions (pause, resume, retry, cancel, a bulk retry)
call the thin client (:mod:`pgq_client._client`) themselves
(``pgq_client/dashboard/_actions.py``). Plain functions over the caller's (sync,
autocommit) psycopg connection, like the thin client; the SQL text is in
:mod:`pgq_client._queries`. Rows come back as dicts by column name, so a column
a later revision adds (q.stats's ``*_exact`` flags) reaches the pages without a
change here.

What the installed revision offers is asked once per request
(:func:`features`): a function that is missing (older revision) or not
granted to this role is shown as such, never called. Revision 0006
(observability) brings ``q.throughput``, ``q.throughput_totals``,
``q.explain``, ``q.health``, ``q.job_page`` and ``q.retry_dead``, and they are
used as soon as they are installed; before it the job list pages through
``q.jobs`` (see :func:`job_page`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from . import _queries as sql
from .records import JOB_LIST_STATES

Connection = psycopg.Connection[Any]
Row = dict[str, Any]

# q.jobs reads at most this many rows per call (its own bound).
JOBS_MAX_ROWS = 10000
# A job list's text search reads at most this many jobs per page (q.job_page's max_scan).
SEARCH_BUDGET = 10000


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


@dataclass(frozen=True)
class Staleness:
    """What a reader on a standby sees: whether it is one, and how long ago its last replayed commit was.

    ``replayed_ago`` grows while the primary commits nothing too: it bounds how stale the data
    is from above (nothing the standby shows is older than the primary's state that long ago),
    and ``receive_lag_bytes`` (WAL received, not yet replayed) says whether it is catching up.
    """

    standby: bool
    replayed_ago: timedelta | None
    receive_lag_bytes: int | None


def staleness(conn: Connection) -> Staleness:
    """Is this connection on a standby, and how far behind its replay is (``pg_last_xact_replay_timestamp``)."""
    row = conn.execute(sql.STALENESS).fetchone()
    assert row is not None
    return Staleness(bool(row[0]), row[1], None if row[2] is None else int(row[2]))


def bound(conn: Connection, timeout: timedelta) -> None:
    """Every later statement on this connection is cancelled after ``timeout`` (statement_timeout)."""
    conn.execute(sql.STATEMENT_TIMEOUT, (f"{int(timeout.total_seconds() * 1000)}ms",))


def _rows(conn: Connection, query: str, params: tuple[Any, ...] = ()) -> list[Row]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        return cur.fetchall()


# -- reading ------------------------------------------------------------------------------------


# Queues per q.stats call (its own default): a page of the dashboard, the exporter's read.
QUEUES_PAGE = 1000


def queues(conn: Connection, *, max_queues: int = QUEUES_PAGE, after: str | None = None) -> list[Row]:
    """``q.stats()``: per queue paused, waiting, held, scheduled, running, dead, oldest_waiting (and *_exact).

    From revision 0008 only ACTIVE queues (jobs, history, settings, a schedule or an outcome in the
    last hour), at most ``max_queues`` of them in name order after the name ``after`` (pass the last
    row's queue for the next page). Before 0008 every queue, in one call (``after`` is then ignored).
    """
    try:
        return _rows(conn, sql.STATS_PAGE, (max_queues, after))
    except psycopg.errors.UndefinedFunction:
        return _rows(conn, sql.STATS_DEFAULT)[:max_queues] if after is None else []


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
    """One page of a job list: rows in the list's order, and where the next page starts.

    Every row has ``id, queue, state, attempt, priority, run_at, finished_at,
    payload, last_error``. ``next_after`` is None on the last page; pass it as
    ``after`` for the next. ``searched_out``: a text search read its budget
    before filling the page (the next page goes on from there). ``indexed``:
    read through ``q.job_page`` (revision 0006; else through ``q.jobs``).
    """

    rows: list[Row]
    next_after: dict[str, Any] | None
    searched_out: bool
    indexed: bool


def job_page(conn: Connection, feats: Features, *, queue: str | None, state: str, text: str | None = None,
             after: dict[str, Any] | None = None, limit: int = 50) -> Page:
    """A page of the jobs of one state (and queue), filtered by text in the payload or the errors.

    With ``q.job_page`` installed (revision 0006): keyset paging on an index,
    as fast at page 1,000 as at page 1 with 10M jobs; waiting jobs come in
    claim order and scheduled by due time (both need a queue), running and
    finished newest first; a text search reads at most SEARCH_BUDGET jobs per
    page. Before it, through ``q.jobs``: newest first, paged by id, and a text
    search sees the newest JOBS_MAX_ROWS jobs of the queue and state only
    (``searched_out`` says so).
    """
    if state not in JOB_LIST_STATES:
        raise ValueError(f"state must be one of {', '.join(JOB_LIST_STATES)}, got {state!r}")
    if not 1 <= limit <= 500:
        raise ValueError(f"limit must be between 1 and 500, got {limit}")
    if feats.may("job_page"):
        rows = _rows(conn, sql.JOB_PAGE, (queue, state, Jsonb(after) if after is not None else None,
                                                 text or None, limit, SEARCH_BUDGET))
        searched_out = bool(rows) and rows[-1]["id"] is None
        listed = [r for r in rows if r["id"] is not None]
        more = searched_out or len(listed) >= limit
        return Page(listed, rows[-1]["next_after"] if rows and more else None, searched_out, True)
    before = int(after["id"]) if after and "id" in after else None
    needle = text.lower() if text else None
    wanted = JOBS_MAX_ROWS if (needle or before is not None) else limit + 1
    found = jobs(conn, queue=queue, state=state, max_rows=wanted)
    picked: list[Row] = []
    for row in found:
        if before is not None and row["id"] >= before:
            continue
        if needle and needle not in _haystack(row):
            continue
        row["last_error"] = last_error(row) or None
        picked.append(row)
        if len(picked) > limit:
            break
    more = len(picked) > limit
    picked = picked[:limit]
    return Page(picked, {"id": picked[-1]["id"]} if more else None, bool(needle) and len(found) >= wanted, False)


def _haystack(row: Row) -> str:
    return (json.dumps(row.get("payload")) + " " + json.dumps(row.get("errors"))).lower()


def jobs(conn: Connection, *, queue: str | None, state: str | None, max_rows: int) -> list[Row]:
    """Jobs newest first, live and finished, of one queue and state (``q.jobs``; max_rows at most JOBS_MAX_ROWS)."""
    return _rows(conn, sql.JOBS, (queue, state, None, max_rows))


def job(conn: Connection, job_id: int) -> Row | None:
    """One job wherever it is (live or in the history), with its payload and every attempt's error."""
    rows = _rows(conn, sql.JOBS, (None, None, job_id, 1))
    return rows[0] if rows else None


def result(conn: Connection, job_id: int) -> Row | None:
    """What became of the job: its result and progress (``q.result``, revision 0009; check ``features``)."""
    rows = _rows(conn, sql.RESULT, (job_id,))
    return rows[0] if rows else None


def graph(conn: Connection, job_id: int, max_rows: int = 50) -> list[Row]:
    """The job, its parents and its children with their states and edges (``q.job_graph``, revision 0009)."""
    return _rows(conn, sql.JOB_GRAPH, (job_id, max_rows))


def explain(conn: Connection, job_id: int) -> list[Row]:
    """Why the job is not running now, one row per reason (``q.explain``; check ``features``)."""
    return _rows(conn, sql.EXPLAIN, (job_id,))


def health(conn: Connection) -> list[Row]:
    """What keeps a queue fast: vacuum, bloat, the xmin horizon (``q.health``; check ``features``)."""
    return _rows(conn, sql.HEALTH)


def schedules(conn: Connection) -> list[Row]:
    """Every schedule (``q.schedules``, revision 0004; check ``features``)."""
    return _rows(conn, sql.SCHEDULES, (None,))


def limits(conn: Connection) -> list[Row]:
    """Every limited queue's limits and how full they are (``q.limits``, revision 0005; check ``features``)."""
    return _rows(conn, sql.LIMITS, (None,))


def busy_keys(conn: Connection, *, max_rows: int = 10) -> list[Row]:
    """The busiest concurrency keys per keyed queue: admitted, running and held jobs (``q.busy_keys``, revision
    0009; check ``features``)."""
    return _rows(conn, sql.BUSY_KEYS, (None, max_rows))


def last_error(row: Row) -> str:
    """The last attempt's error text of a ``q.jobs`` row ('' if none)."""
    errors = row.get("errors") or []
    return str(errors[-1].get("error", "")) if errors and isinstance(errors[-1], dict) else ""
