"""Helpers of the dashboard tests: a `pgq dashboard` process, a database with jobs in every state, Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pgq_client import claim, enqueue, enqueue_many

PGQ = str(Path(sys.executable).with_name("pgq"))
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def dashboard(url: str, log: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`pgq dashboard` on a free port; yields its base URL; stopped (SIGTERM) at the end."""
    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen([PGQ, "dashboard", "--port", str(port), *args], stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "DATABASE_URL": url, "PYTHONUNBUFFERED": "1", **(env or {})})
    base = f"http://127.0.0.1:{port}"  # with --root-path, as a proxy that strips the prefix sends it
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/", timeout=5):
                    break
            except (urllib.error.URLError, ConnectionError) as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    http = isinstance(exc, urllib.error.HTTPError)
                    said = exc.read().decode(errors="replace")[-2000:] if http else exc
                    raise AssertionError(f"the dashboard did not start ({said}):\n{log.read_text()}") from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


class Jobs:
    """Ids of the jobs made by :func:`jobs_in_every_state`."""

    waiting: list[int]
    scheduled: int
    running: int
    completed: list[int]
    dead_mailbox: list[int]
    dead_timeout: int
    cancelled: int
    bulk: list[int]


def jobs_in_every_state(url: str) -> Jobs:
    made = Jobs()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.configure('emails', keep_completed => true, max_attempts => 1)")
        made.waiting = enqueue_many(conn, "emails", [{"to": f"user{n}@example.com"} for n in range(5)])
        made.scheduled = enqueue(conn, "emails", {"to": "later@example.com"},
                                 run_at=datetime.now(timezone.utc) + timedelta(hours=1))
        dead = enqueue_many(conn, "emails", [{"to": f"full{n}@example.com"} for n in range(3)])
        slow = enqueue(conn, "emails", {"to": "slow@example.com"})
        done = enqueue_many(conn, "emails", [{"to": f"done{n}@example.com"} for n in range(2)])
        gone = enqueue(conn, "emails", {"to": "gone@example.com"})
        run = enqueue(conn, "emails", {"to": "busy@example.com"})
        # Claim what must leave "waiting", oldest first (the claim order), and finish each as wanted.
        for job in claim(conn, "emails", 100):
            if job.id in dead:
                conn.execute("select q.fail(%s, %s, %s)", (job.id, job.token,
                                                           "Traceback ...\nSMTPError: mailbox full"))
            elif job.id == slow:
                conn.execute("select q.fail(%s, %s, %s)", (job.id, job.token, "TimeoutError: smtp timed out"))
            elif job.id in done:
                conn.execute("select q.complete(%s, %s)", (job.id, job.token))
            elif job.id in (run,):
                pass  # stays running
            else:
                conn.execute("select q.release(%s, %s)", (job.id, job.token))
        conn.execute("select q.cancel(%s)", (gone,))
        made.running, made.completed, made.dead_mailbox, made.dead_timeout, made.cancelled = run, done, dead, slow, gone
        made.bulk = enqueue_many(conn, "bulk", [{"n": n} for n in range(60)])
        enqueue_many(conn, "sms", [{"n": n} for n in range(2)])
    with psycopg.connect(url, autocommit=True) as conn:
        states = dict(conn.execute("select state, count(*) from q.jobs(max_rows => 10000) group by state").fetchall())
    assert states == {"waiting": 5 + 60 + 2, "scheduled": 1, "running": 1, "completed": 2, "dead": 4,
                      "cancelled": 1}, states
    return made


def state_of(url: str, job_id: int) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select state from q.jobs(id => %s)", (job_id,)).fetchone()
        assert row is not None
        return str(row[0])


def chromium() -> Any:
    """Debian's chromium, headless, driven by Debian's chromedriver (no browser download at run time)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.fail("chromium and chromium-driver are missing: run scripts/install-deps (make deps)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,860", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console errors (CSP violations) readable
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


def installed(url: str, function: str) -> bool:
    """Is q.<function> in this database (revision 0006 brings q.job_page, q.throughput, q.explain, q.health)?"""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select exists(select from pg_proc where pronamespace = 'q'::regnamespace"
                           " and proname = %s)", (function,)).fetchone()
        return bool(row and row[0])
