"""How the `pgq` command shows queues and jobs (rich tables)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..records import (
    GraphEdge,
    HealthCheck,
    JobInfo,
    JobState,
    QueueLimits,
    QueueSettings,
    QueueStats,
    Reason,
    ScheduleInfo,
    ThroughputBucket,
    UndecodablePayload,
)

STATES = tuple(s.value for s in JobState)
# Columns of prose, which may wrap; every other column (ids, names, states, counts, times) is kept whole.
PROSE_COLUMNS = frozenset({"last error", "message", "advice", "reason", "value"})


def show(console: Console, renderable: RenderableType) -> None:
    """Print a table (or a group of them) without cutting a value: prose columns wrap, the others keep
    their width, and a table that does not fit the terminal (80 columns, a pipe) is printed wider
    than it instead of ending timestamps in "2026-12…"."""
    parts = renderable.renderables if isinstance(renderable, Group) else [renderable]
    needed = 0
    for part in parts:
        if isinstance(part, Table):
            needed = max(needed, _whole_width(console, part))
    if needed <= console.width:
        console.print(renderable)
        return
    width = console.width  # print(width=) cannot go beyond the console's own: widen it for this table
    console.width = needed
    try:
        console.print(renderable, crop=False)
    finally:
        console.width = width


def _whole_width(console: Console, table: Table) -> int:
    """The width a table needs for its non-prose columns at full width (prose at its longest word)."""
    total = 0
    for column in table.columns:
        column.no_wrap = str(column.header) not in PROSE_COLUMNS
        sizes = [Measurement.get(console, console.options, cell) for cell in [column.header, *column.cells]]
        total += max((m.minimum if not column.no_wrap else m.maximum) for m in sizes) + 3  # padding, rule
    return total + 1


def _age(value: timedelta | None) -> str:
    if value is None:
        return "-"
    seconds = value.total_seconds()
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        return f"{seconds / 60:.1f}m"
    return f"{seconds / 3600:.1f}h"


def _when(value: datetime | None) -> str:
    return value.isoformat(sep=" ", timespec="seconds") if value else "-"


def stats_table(rows: list[QueueStats], title: str = "pgq queues") -> Table:
    table = Table(title=title, title_justify="left")
    for name, justify in (("queue", "left"), ("paused", "left"), ("waiting", "right"), ("held", "right"),
                          ("scheduled", "right"), ("running", "right"), ("dead", "right"), ("oldest waiting", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    # Workflows (revision 0010): the pending / on-hold columns show when some queue has such jobs.
    graphs = any(r.pending or r.on_hold for r in rows)
    if graphs:
        table.add_column("pending", justify="right")
        table.add_column("on hold", justify="right")
    for r in rows:
        # held: due jobs held back by their concurrency key (revision 0008; before it counted in waiting)
        cells = [r.queue, "yes" if r.paused else "", _count(r.waiting, r.waiting_exact),
                 _count(r.held, r.held_exact), _count(r.scheduled, r.scheduled_exact), f"{r.running:,}",
                 Text(_count(r.dead, r.dead_exact), style="red" if r.dead else ""), _age(r.oldest_waiting)]
        if graphs:
            cells += [_count(r.pending, r.pending_exact),
                      Text(_count(r.on_hold, r.on_hold_exact), style="yellow" if r.on_hold else "")]
        table.add_row(*cells)
    if not rows:
        table.caption = "no active queues (jobs, history, settings or an outcome in the last hour)"
    elif not all(r.waiting_exact and r.scheduled_exact and r.dead_exact for r in rows):
        table.caption = "~ the planner's estimate (above the exact count's bound)"
    return table


def limits_table(rows: list[QueueLimits]) -> Table:
    table = Table(title="pgq limits", title_justify="left")
    for name, justify in (("queue", "left"), ("running / concurrency", "right"), ("busy keys", "right"),
                          ("per key", "left"), ("key rate", "right"), ("held", "right"), ("rate window", "right"),
                          ("next start", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        full = r.concurrency is not None and r.running >= r.concurrency
        table.add_row(r.queue, Text(f"{r.running:,} / {r.concurrency if r.concurrency is not None else 'unlimited'}",
                                    style="yellow" if full else ""),
                      f"{r.busy_keys:,}" if r.key_concurrency is not None else "-",
                      (f"at most {r.key_concurrency}" + (", ordered" if r.ordered else ""))
                      if r.key_concurrency is not None else "-",
                      f"{r.key_rate:,}/{_whole(r.key_per)}" if r.key_rate and r.key_per else "-",
                      "> 10,000" if r.held > 10000 else f"{r.held:,}",
                      f"{r.started_in_window:,} / {r.rate:,} per {_whole(r.per)}" if r.rate and r.per else "-",
                      _when(r.next_start_at))
    if not rows:
        table.caption = ("no queue has a limit (pgq configure QUEUE --concurrency N, --key-concurrency K, --rate R,"
                         " --key-rate R)")
    return table


def settings_table(row: QueueSettings) -> Table:
    table = Table(title=f"queue {row.queue}", title_justify="left", show_header=False)
    table.add_column("setting")
    table.add_column("value")
    for name in ("paused", "lease", "max_lease", "max_attempts", "max_crashes", "backoff_base", "backoff_max",
                 "keep_completed", "retention", "concurrency", "key_concurrency", "ordered", "rate", "per", "key_rate",
                 "key_per", "keep_results", "max_result_size"):
        value = getattr(row, name)
        table.add_row(name, "-" if value is None else _whole(value) if isinstance(value, timedelta) else str(value))
    return table


def _timing(row: ScheduleInfo) -> str:
    if row.cron is not None:
        return row.cron
    assert row.every is not None
    return f"every {_age(row.every) if row.every.total_seconds() % 60 else _whole(row.every)}"


def _whole(value: timedelta) -> str:
    """In the largest whole unit; a fraction of a second (per => '500 ms') as such, not as 0s."""
    if value.total_seconds() != int(value.total_seconds()):
        return f"{value.total_seconds():g}s"
    seconds = int(value.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _local(value: datetime | None, zone: str) -> str:
    """A fire time in the schedule's zone (with its offset), as operators read the cron expression."""
    if value is None:
        return "-"
    try:
        from zoneinfo import ZoneInfo

        return value.astimezone(ZoneInfo(zone)).isoformat(sep=" ", timespec="seconds")
    except Exception:  # noqa: BLE001 - a zone Python does not know: show it as PostgreSQL sent it
        return _when(value)


def schedules_table(rows: list[ScheduleInfo]) -> Table:
    table = Table(title="pgq schedules", title_justify="left")
    for name in ("name", "queue", "when", "timezone", "catch-up", "next fire", "last slot", "last job"):
        table.add_column(name, justify="right" if name == "last job" else "left")
    for r in rows:
        table.add_row(r.name, r.queue, _timing(r), r.timezone, r.catch_up,
                      Text("paused", style="yellow") if r.paused else Text(_local(r.next_fire_at, r.timezone)),
                      _local(r.last_slot, r.timezone), "-" if r.last_job_id is None else str(r.last_job_id))
    if not rows:
        table.caption = "no schedules"
    return table


def _count(value: int, exact: bool) -> str:
    return f"{value:,}" if exact else f"~{value:,}"


def _last_error(errors: Any) -> str:
    if not errors:
        return ""
    last = errors[-1]
    text = str(last.get("error", "")) if isinstance(last, dict) else str(last)
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:80] if lines else ""


def jobs_table(rows: list[JobInfo]) -> Table:
    table = Table(title="pgq jobs", title_justify="left")
    for name in ("id", "queue", "state", "attempt", "priority", "run at", "lease until / finished", "last error"):
        table.add_column(name, justify="right" if name in ("id", "attempt", "priority") else "left")
    for r in rows:
        table.add_row(str(r.id), r.queue, r.state, str(r.attempt), str(r.priority),
                      _when(r.run_at), _when(r.finished_at or r.lease_until), _last_error(r.errors))
    if not rows:
        table.caption = "no jobs match"
    return table


def job_detail(row: JobInfo) -> Group:
    table = Table(show_header=False, title=f"job {row.id}", title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    for key in ("queue", "state", "attempt", "crashes", "priority", "dedup_key"):
        value = getattr(row, key)
        table.add_row(key, "-" if value is None else str(value))
    table.add_row("run_at", _when(row.run_at))
    if row.finished_at is not None:
        table.add_row("finished_at", _when(row.finished_at))
    else:
        table.add_row("lease_until", _when(row.lease_until))
    payload = row.payload
    shown = f"(cannot be decoded: {payload.reason})" if isinstance(payload, UndecodablePayload) else json.dumps(
        payload, indent=2)
    table.add_row("payload", shown)
    parts: list[Any] = [table]
    for entry in row.errors or []:
        head = f"attempt {entry.get('attempt')} at {entry.get('at')}" + (" (crash)" if entry.get("crashed") else "")
        parts.append(Text(head, style="bold red"))
        parts.append(Text(str(entry.get("error", ""))))
    return Group(*parts)


_SEVERITY_STYLE = {"ok": "green", "info": "cyan", "warning": "yellow", "critical": "bold red"}


def reasons_table(job_id: int, rows: list[Reason]) -> Table:
    table = Table(title=f"why job {job_id} is not running", title_justify="left")
    table.add_column("code", style="bold")
    table.add_column("reason")
    for r in rows:
        table.add_row(r.code, r.message)
    return table


def graph_table(job_id: int, rows: list[GraphEdge]) -> Table:
    table = Table(title=f"job {job_id}: parents and children", title_justify="left")
    for name in ("relation", "job", "queue", "state", "edge", "on parent failure"):
        table.add_column(name)
    for r in rows:
        table.add_row(Text(r.relation, style="bold" if r.relation == "self" else ""), str(r.job_id), r.queue or "",
                      r.state, r.edge_outcome or ("waiting" if r.relation != "self" else ""),
                      r.on_parent_failure or "")
    return table


def health_table(rows: list[HealthCheck], show_ok: bool = False) -> Table:
    table = Table(title="pgq health", title_justify="left")
    for name in ("severity", "check", "object", "message", "advice"):
        table.add_column(name)
    shown = [r for r in rows if show_ok or r.severity != "ok"]
    for r in shown:
        table.add_row(Text(r.severity, style=_SEVERITY_STYLE.get(r.severity, "")), r.check_name, r.object,
                      r.message, r.advice)
    hidden = len(rows) - len(shown)
    if hidden:
        table.caption = f"{hidden} check(s) ok (--all shows them)"
    return table


def throughput_table(rows: list[ThroughputBucket], minutes: int) -> Table:
    table = Table(title=f"pgq throughput, last {minutes} min (per minute: mean / busiest)", title_justify="left")
    for name in ("queue", "completed", "failed (will retry)", "dead", "completed/min", "busiest minute"):
        table.add_column(name, justify="left" if name == "queue" else "right")
    per_queue: dict[str, list[ThroughputBucket]] = {}
    for r in rows:
        per_queue.setdefault(r.queue, []).append(r)
    for queue, buckets in sorted(per_queue.items()):
        done = sum(b.completed for b in buckets)
        dead = sum(b.dead for b in buckets)
        table.add_row(queue, f"{done:,}", f"{sum(b.failed for b in buckets):,}",
                      Text(f"{dead:,}", style="red" if dead else ""), f"{done / max(minutes, 1):,.1f}",
                      f"{max(b.completed for b in buckets):,}")
    if not rows:
        table.caption = "nothing finished in that time"
    return table
