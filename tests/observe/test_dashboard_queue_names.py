"""The dashboard's front page at 50,000 queue names (0007 answered 503 after its 5 s timeout:
design.md#queue-names-cost-nothing-when-idle)."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
from dashboard_support import dashboard
from pgq_client import enqueue


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_queues_page_at_50000_idle_names_lists_the_active_queues_a_page_at_a_time(
    db_url: str, tmp_path: Path
) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("insert into q_data.queue (name) select 'idle-' || g from generate_series(1, 50000) g")
        for n in range(3):
            enqueue(conn, f"busy-{n}", {"n": n})
        conn.execute("analyze q_data.queue")
    with dashboard(db_url, tmp_path / "dashboard.log") as base:
        started = time.perf_counter()
        status, page = get(base + "/")
        took = time.perf_counter() - started
    print(f"\nqueues page at 50,003 names (3 active): {status}, {len(page)} bytes, {took * 1000:.0f} ms")
    assert status == 200
    assert all(f'data-queue="busy-{n}"' in page for n in range(3))
    assert page.count("data-queue=") == 3, "idle names are not listed"


def test_the_queues_page_counts_held_jobs_apart_from_waiting(db_url: str, tmp_path: Path) -> None:
    """The page said "waiting 3" for jobs held by a concurrency key, and their list was empty
    (design.md#held-jobs-are-visible)."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.configure('keyed', key_concurrency => 1)")
        for n in range(3):
            conn.execute("select q.enqueue('keyed', %s, concurrency_key => 'acme')", (f'{{"n": {n}}}',))
    with dashboard(db_url, tmp_path / "dashboard.log") as base:
        status, page = get(base + "/")
    assert status == 200 and ">held</th>" in page
    row = page.split('data-queue="keyed"', 1)[1].split("</tr>", 1)[0]
    cells = [c.split("<", 1)[0] for c in row.split('<td class="num">')[1:3]]
    assert cells[0] == "1" and ">2</a>" in cells[1] + row, row  # waiting 1 (the admitted acme job), held 2
    with dashboard(db_url, tmp_path / "dashboard2.log") as base:
        status, listing = get(base + "/jobs?queue=keyed&state=held")
    assert status == 200 and listing.count('data-state="held"') == 2, "the held list shows both"
