"""How values read on a page (the templates' filters): ages, times with their zone, JSON, errors. No I/O."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from markupsafe import Markup, escape

# A traceback's frame line ("  File "x.py", line 3, in f"); the exception line follows the last one, unindented.
_FRAME = re.compile(r'^\s+File "')
TRUNCATED = re.compile(r" \[truncated: \d+ characters in all\]$")
SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2, "ok": 3}


def age(value: timedelta | None) -> str:
    if value is None:
        return "–"
    seconds = int(value.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    if seconds < 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 86400} d {seconds % 86400 // 3600} h"


def when(value: datetime | None) -> str:
    if value is None:
        return "–"
    return value.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def iso(value: datetime) -> str:
    """The ISO form a ``<time datetime>`` carries (the page's script shows it in the browser's time zone)."""
    return value.astimezone(timezone.utc).isoformat()


def in_zone(value: datetime | None, zone: str | None) -> str:
    """A time in a named zone (a schedule's), e.g. ``2026-12-05 09:00:00 Europe/Berlin``; "" for UTC or unknown."""
    if value is None or not zone or zone.upper() in ("UTC", "ETC/UTC", "Z"):
        return ""
    try:
        return value.astimezone(ZoneInfo(zone)).strftime(f"%Y-%m-%d %H:%M:%S {zone}")
    except (ZoneInfoNotFoundError, ValueError):
        return ""


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


def cell(value: Any) -> str:
    """A value of a generic table: times in UTC, JSON as JSON, NULL as a dash, booleans as yes/no."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return when(value)
    if isinstance(value, timedelta):
        return age(value)
    if isinstance(value, (dict, list)):
        return excerpt(value, 120)
    return str(value)


def every(value: timedelta | None) -> str:
    """An interval schedule's period: ``every 30 s``, ``every 1 h 0 min``."""
    return "" if value is None else f"every {age(value)}"


def excerpt(value: Any, length: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= length else text[: length - 1] + "…"


def exception_line(text: str | None) -> str:
    """What went wrong, in one line: a traceback's exception line (``ValueError: bad``), not its frames.

    In a Python traceback the exception line is the first unindented line after
    the last frame (a chained traceback ends with the exception that escaped; a
    message of several lines gives its first). A traceback that pgq cut at 4,096
    characters before that line says so. Any other text: its last non-empty line.
    """
    lines = [line for line in str(text or "").splitlines() if line.strip()]
    if not lines:
        return ""
    frames = [i for i, line in enumerate(lines) if _FRAME.match(line)]
    if frames:
        for line in lines[frames[-1] + 1:]:
            if not line[:1].isspace():
                return TRUNCATED.sub("", line)[:200]
        if TRUNCATED.search(lines[-1]):
            return "(traceback cut at 4,096 characters before its exception line: see the job's errors)"
    return TRUNCATED.sub("", lines[-1])[:200]


def error_line(value: Any) -> str:
    """:func:`exception_line` of a text, or of a list of errors' newest entry."""
    if isinstance(value, list):
        value = value[-1].get("error", "") if value and isinstance(value[-1], dict) else ""
    return exception_line(value)


def numbered_errors(errors: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """A job's errors newest first, each with ``number`` (its attempt counted across retries), ``run`` and ``when``.

    ``q.retry`` starts a job's attempts at 1 again and keeps its errors, so an
    attempt number that does not grow marks a retry: the number goes on from the
    previous run's last recorded attempt. Counted from the errors pgq keeps (the
    newest 20); an attempt that ended without an error (cancelled, released)
    before a retry is not counted.
    """
    out: list[dict[str, Any]] = []
    offset, run, previous = 0, 1, 0
    for entry in errors or []:
        if not isinstance(entry, dict):
            continue
        attempt = int(entry.get("attempt") or 0)
        if out and attempt <= previous:
            offset, run = offset + previous, run + 1
        previous = attempt
        at = _parse_time(str(entry.get("at") or ""))
        out.append({**entry, "number": offset + attempt, "run": run,
                    "when": when(at) if at is not None else str(entry.get("at") or "–")})
    return out[::-1]


def explained(rows: list[dict[str, Any]], job_id: int) -> list[dict[str, Any]]:
    """``q.explain``'s rows, the dead row's summary quoting the exception line (q.explain quotes a traceback's start,
    which is pgq's own frame)."""
    out = []
    for row in rows:
        detail = row.get("detail")
        if not isinstance(detail, dict):
            detail = {}
        last = detail.get("last_error")
        if row.get("code") == "dead" and isinstance(last, dict) and last.get("error"):
            finished = detail.get("finished_at")
            since = when(_parse_time(str(finished))) if finished else "–"
            row = {**row, "message": f"dead since {since} after {detail.get('attempt')} attempt(s)"
                                     f" ({detail.get('crashes', 0)} crash(es)): {exception_line(last['error'])};"
                                     f" q.retry({job_id}) puts it back"}
        out.append(row)
    return out


def _parse_time(text: str) -> datetime | None:
    """A timestamptz as JSON gives it (``2026-12-04T20:30:00.12345+00:00``); None if it is not one."""
    padded = re.sub(r"\.(\d{1,6})(?=[+-]|$)", lambda m: "." + m.group(1).ljust(6, "0"), text)  # Python 3.10
    try:
        return datetime.fromisoformat(padded)
    except ValueError:
        return None


def by_severity(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Health rows, problems first (critical, warning, info, ok), each group in q.health's order."""
    return sorted(rows, key=lambda r: SEVERITY_ORDER.get(str(r.get("severity")), 0))


def severity_counts(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """``[("critical", 1), ("warning", 2), ("info", 3), ("ok", 60)]``: the severities present, worst first."""
    counts: dict[str, int] = {}
    for row in by_severity(rows):
        counts[str(row.get("severity"))] = counts.get(str(row.get("severity")), 0) + 1
    return list(counts.items())


# "... are taken by jobs 23, 24": q.explain's key_concurrency reason (sql/internal/flow_reasons.sql) names the jobs
# holding the key's slots; the job page links them.
_BLOCKING = re.compile(r"(taken by jobs )(\d+(?:, \d+)*)")


def linked_jobs(text: str, base: str) -> Markup:
    """``text`` escaped, with the job ids of a "taken by jobs 23, 24" reason as links to their pages."""
    escaped = str(escape(text))

    def links(match: re.Match[str]) -> str:
        ids = match.group(2).split(", ")
        return match.group(1) + ", ".join(f'<a class="blocking" href="{escape(base)}/jobs/{i}">{i}</a>' for i in ids)

    return Markup(_BLOCKING.sub(links, escaped))
