"""The dashboard's job page shows a job's result and progress (issue 24), escaped like the payload."""

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
