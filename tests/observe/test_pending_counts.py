"""Pending and on-hold jobs (workflows) are counted where operators look (revision 0010).

q.stats counts them per queue; ``pgq stats``, ``pgq metrics`` and the dashboard's Queues page show
those counts. Observed through the running command, exporter and dashboard, not the record.
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

import psycopg
from dashboard_support import dashboard
from observe_support import value
from pgq_client.exporter import QueueCollector


def a_graph_with_pending_and_held_children(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        p1 = conn.execute("select q.enqueue('pc_parents', '{}')").fetchone()[0]  # type: ignore[index]
        p2 = conn.execute("select q.enqueue('pc_parents', '{}')").fetchone()[0]  # type: ignore[index]
        conn.execute("select q.enqueue_after('pc_children', '{}', array[%s]) from generate_series(1, 3)", (p1,))
        conn.execute("select q.enqueue_after('pc_children', '{}', array[%s], on_parent_failure => 'hold')", (p2,))
        conn.execute("select q.cancel(%s)", (p2,))


def test_stats_metrics_and_dashboard_count_pending_and_on_hold(db_url: str, tmp_path: Path) -> None:
    from pgq_client.cli._commands import app as cli
    from typer.testing import CliRunner

    a_graph_with_pending_and_held_children(db_url)

    shown = CliRunner().invoke(cli, ["--database-url", db_url, "stats", "--once"], terminal_width=250)
    assert shown.exit_code == 0, shown.output
    line = next(x for x in shown.output.splitlines() if "pc_children" in x)
    assert "pending" in shown.output and "on hold" in shown.output
    assert [cell.strip() for cell in line.split("│")[-3:-1]] == ["3", "1"], line

    collector = QueueCollector(db_url, min_interval=0)
    try:
        samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
                   for family in collector.collect() for s in family.samples}
    finally:
        collector.close()
    assert value(samples, "pgq_queue_jobs", queue="pc_children", state="pending") == 3
    assert value(samples, "pgq_queue_jobs", queue="pc_children", state="on_hold") == 1
    assert value(samples, "pgq_queue_jobs", queue="pc_parents", state="pending") == 0

    with dashboard(db_url, tmp_path / "dashboard.log") as base:
        with urllib.request.urlopen(base + "/", timeout=10) as response:
            page = response.read().decode()
    row = page.split('data-queue="pc_children"', 1)[1].split("</tr>", 1)[0]
    assert "state=pending\">3</a>" in row and "state=on_hold\">1</a>" in row, row
