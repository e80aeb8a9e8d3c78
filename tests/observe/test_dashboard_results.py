"""The dashboard's job page shows a job's result and progress, escaped like the payload
(design.md#results-and-dependencies)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import psycopg
from dashboard_support import dashboard


def test_the_job_page_shows_the_result_and_the_progress_escaped(db_url: str, tmp_path: Path) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.configure('emails', keep_completed => true)")
        job_id = conn.execute("select q.enqueue('emails', '{}')").fetchone()[0]  # type: ignore[index]
        token = conn.execute("select token from q.claim('emails')").fetchone()[0]  # type: ignore[index]
        conn.execute("select q.heartbeat(%s, %s, progress => %s)", (job_id, token, json.dumps({"sent": 7})))
        conn.execute("select q.complete(%s, %s, %s)", (job_id, token, json.dumps({"note": "<b>bold</b>"})))
    with dashboard(db_url, tmp_path / "dashboard.log") as base, urllib.request.urlopen(f"{base}/jobs/{job_id}") as r:
        page = r.read().decode()
    assert 'id="result"' in page and "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
    assert 'id="progress"' in page and ("&#34;sent&#34;: 7" in page or '"sent": 7' in page)


def test_the_job_page_shows_the_jobs_parents_and_children_with_their_states(db_url: str, tmp_path: Path) -> None:
    """A flow view on the job page: the parents a job waits for, the children that wait for it, linked."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        ids = dict(conn.execute("""select ref, id from q.enqueue_flow('[
            {"ref": "a", "queue": "etl", "payload": {}},
            {"ref": "b", "queue": "etl", "payload": {}},
            {"ref": "c", "queue": "etl", "payload": {}, "after": ["a", "b"],
             "on_parent_failure": "hold"}]')""").fetchall())
        claimed = conn.execute("select id, token from q.claim('etl', 1)").fetchone()
        assert claimed is not None and claimed[0] == ids["a"]
        conn.execute("select q.complete(%s, %s)", claimed)
        plain = conn.execute("select q.enqueue('etl', '{}')").fetchone()[0]  # type: ignore[index]
    with dashboard(db_url, tmp_path / "dashboard.log") as base:
        with urllib.request.urlopen(f"{base}/jobs/{ids['c']}") as r:
            child = r.read().decode()
        with urllib.request.urlopen(f"{base}/jobs/{ids['b']}") as r:
            parent = r.read().decode()
        with urllib.request.urlopen(f"{base}/jobs/{plain}") as r:
            alone = r.read().decode()
    assert 'state-pending">pending' in child and 'id="graph"' in child
    # Parent a completed (gone: the queue keeps no history), b still waits: both listed, b linked.
    assert f'data-job="{ids["a"]}" data-relation="parent"' in child
    assert f'<a href="/jobs/{ids["b"]}">{ids["b"]}</a>' in child
    assert child.count("<td>hold</td>") == 2 and "<td>completed</td>" in child
    assert f'data-job="{ids["c"]}" data-relation="child"' in parent
    assert 'id="graph"' not in alone, "a job outside any graph shows no graph"
    assert f"/jobs/{ids['c']}/cancel" in child, "a pending job can be cancelled from its page"
