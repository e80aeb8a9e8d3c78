"""Reads from a streaming standby: `pgq dashboard --read-url` and `pgq metrics --read-url`
(design.md#failover-and-several-databases).

A primary and a physical standby of the test's own (tests/reliability/soak/standby.py, asynchronous).
The dashboard reads its pages from the standby (what the standby has replayed, and its header says
how stale), while its actions go to the primary: a job enqueued on the primary appears once the
standby replayed it; pausing a queue from the page pauses it on the primary. The exporter reads the
standby and says so (pgq_exporter_standby, pgq_exporter_standby_replay_age_seconds).

Ports: PGQ_READ_URL_PG_PORTS (default "54368,54369").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from dashboard_support import dashboard, free_port
from psycopg.conninfo import conninfo_to_dict, make_conninfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reliability.soak.standby import Pair  # noqa: E402

# The module-scoped pair of clusters is on fixed directories and ports: both tests on one xdist worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("read_url_cluster")]

PORTS = [int(p) for p in os.environ.get("PGQ_READ_URL_PG_PORTS", "54368,54369").split(",")]
PGQ = str(Path(sys.executable).with_name("pgq"))


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[str, str]]:
    """(primary URL, standby URL) of one database with pgq, streaming."""
    servers = Pair("read-url-test", PORTS[0], PORTS[1], synchronous=False)
    servers.start_primary()
    try:
        primary = servers.primary.new_database("readurl")
        servers.start_standby()
        dbname = str(conninfo_to_dict(primary)["dbname"])
        standby = make_conninfo(servers.standby_server_url, dbname=dbname)
        yield primary, standby
    finally:
        servers.stop()


def replayed(standby: str, query: str, params: tuple[object, ...], want: object, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    with psycopg.connect(standby, autocommit=True) as conn:
        while conn.execute(query, params).fetchone() != want:
            assert time.monotonic() < deadline, f"the standby did not replay {query} {params} in {timeout} s"
            time.sleep(0.05)


def page(url: str) -> str:
    with urllib.request.urlopen(url) as r:
        return str(r.read().decode())


def test_the_dashboard_reads_the_standby_and_acts_on_the_primary(pair: tuple[str, str], tmp_path: Path) -> None:
    primary, standby = pair
    with psycopg.connect(primary, autocommit=True) as conn:
        job = conn.execute("select q.enqueue('replicated', '{\"n\": 1}')").fetchone()[0]  # type: ignore[index]
    replayed(standby, "select count(*) from q_data.job where id = %s", (job,), (1,))
    with dashboard(primary, tmp_path / "dashboard.log", "--read-url", standby) as base:
        front = page(base + "/")
        assert 'data-queue="replicated"' in front or ">replicated<" in front, front[-3000:]
        assert 'id="staleness" data-standby="yes"' in front and "read from a standby" in front
        assert "queue replicated" not in front
        job_page = page(f"{base}/jobs/{job}")
        assert "&#34;n&#34;: 1" in job_page or '"n": 1' in job_page
        # An action: the form's CSRF token and cookie, POSTed; it must reach the primary (a standby refuses writes).
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(base + "/") as r:
            token = re.search(r'name="csrf-token" content="([^"]+)"', r.read().decode())
        assert token is not None
        form = urllib.parse.urlencode({"csrf": token.group(1), "back": "/"}).encode()
        request = urllib.request.Request(base + "/queues/replicated/pause", data=form,
                                         headers={"Origin": base, "Sec-Fetch-Site": "same-origin"})
        with opener.open(request) as r:
            assert r.status == 200
    with psycopg.connect(primary, autocommit=True) as conn:
        assert conn.execute("select paused from q.stats() where queue = 'replicated'").fetchone() == (True,)


def test_the_exporter_reads_the_standby_and_says_how_stale(pair: tuple[str, str], tmp_path: Path) -> None:
    primary, standby = pair
    with psycopg.connect(primary, autocommit=True) as conn:
        job = conn.execute("select q.enqueue('exported', '{}')").fetchone()[0]  # type: ignore[index]
    replayed(standby, "select count(*) from q_data.job where id = %s", (job,), (1,))
    port = free_port()
    with (tmp_path / "metrics.log").open("w") as out:
        proc = subprocess.Popen([PGQ, "metrics", "--port", str(port), "--read-url", standby], stdout=out,
                                stderr=subprocess.STDOUT, env={**os.environ, "DATABASE_URL": primary})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                text = page(f"http://127.0.0.1:{port}/metrics")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "metrics.log").read_text()
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(15)
    assert 'pgq_queue_jobs{queue="exported",state="waiting"} 1.0' in text, text[-3000:]
    assert "pgq_exporter_standby 1.0" in text and "pgq_up 1.0" in text
    age = re.search(r"^pgq_exporter_standby_replay_age_seconds ([0-9.e+-]+)$", text, re.M)
    assert age is not None and 0 <= float(age.group(1)) < 60
