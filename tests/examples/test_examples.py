"""examples/ run as a user would run them: the plain script, and the Starlette app under uvicorn with
a `pgq worker` draining what its requests enqueued."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent


def env_for(url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": url, "PYTHONUNBUFFERED": "1"}


def as_url(conninfo: str) -> str:
    d = conninfo_to_dict(conninfo)
    return f"postgresql://{d['user']}@/{d['dbname']}?host={d['host']}&port={d['port']}"


def test_the_plain_script_commits_two_invoices_with_their_jobs_and_runs_them(conn: psycopg.Connection[Any]) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "plain_script.py")], env=env_for(conn.info.dsn),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "bob: rolled back (card declined): no invoice, no job" in done.stdout
    assert "completed 2 jobs; 2 invoices; 0 waiting, 0 running" in done.stdout, done.stdout
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("job ")]
    assert len(lines) == 2 and any("for 99.50 issued 20" in ln for ln in lines), lines


def post(port: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/orders", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_web_app_enqueues_inside_each_requests_transaction(conn: psycopg.Connection[Any]) -> None:
    server = subprocess.Popen(
        [str(BIN / "uvicorn"), "--app-dir", str(EXAMPLES), "--host", "127.0.0.1", "--port", "0", "web_app:app"],
        env=env_for(as_url(conn.info.dsn)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        port, seen = None, []
        deadline = time.monotonic() + 60
        assert server.stdout is not None
        while port is None and time.monotonic() < deadline:
            line = server.stdout.readline()
            seen.append(line)
            if m := re.search(r"Uvicorn running on http://127\.0\.0\.1:(\d+)", line):
                port = int(m.group(1))
            if not line and server.poll() is not None:
                break
        assert port, "".join(seen)
        status, created = post(port, {"email": "ada@example.com", "total": "99.50"})
        assert status == 201, created
        status, refused = post(port, {"email": "bob@example.com", "total": "-1"})
        assert (status, refused) == (422, {"error": "total must be positive"})
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=30)

    orders = conn.execute("select id, email, total::text from example_order").fetchall()
    assert orders == [(created["order"], "ada@example.com", "99.50")], "bob's order was rolled back"
    (job,) = conn.execute("select id, payload from q_data.job").fetchall()
    assert job[0] == created["job"]
    assert {k: job[1][k] for k in ("order", "to", "total")} == {"order": created["order"], "to": "ada@example.com",
                                                                 "total": "99.50"}
    assert job[1]["placed_at"].startswith("20")

    worker = subprocess.Popen([str(BIN / "pgq"), "worker", "web_app:send_confirmation", "-q", "order-emails"],
                              cwd=EXAMPLES, env=env_for(as_url(conn.info.dsn)), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while conn.execute("select count(*) from q_data.job").fetchone() != (0,) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err[-3000:]
    assert f"order {created['order']}: confirmation to ada@example.com (99.50)" in out
