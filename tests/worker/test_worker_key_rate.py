"""The worker runtime on a queue with a per-key rate (revision 0007): a claim that meets a key at its
rate puts the job off and says when the key may start next (pgq.claim_blocked = 'key_rate',
pgq.claim_retry_in), and the worker claims again then, not at its next poll, without a busy wait;
every job runs once and no key starts more than its rate in any window. And `pgq configure
--key-rate/--key-per`, `pgq limits`."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from key_rate_support import STAMPS, most_in_window
from pgq_client import JobContext, Worker
from psycopg.types.json import Jsonb
from worker_support import wait_for

# Starts within 0.25 s of their rate window:
# CPU contention from tests running beside it could break that (make test runs serial tests alone).
pytestmark = pytest.mark.serial

KEYS = ("acme", "globex", "initech")
PER_KEY = 20
RATE = 5
WINDOW = timedelta(seconds=1)
# How late a start may come after its key's window allowed it. A claim that comes back short says
# when the next job a key rate put off may start (q.flow_claim), and the worker claims then (about
# 50 ms late here), not at the reaper's next promotion (up to reap_interval, 1 s, late).
LATE = 0.5

SETUP = """
create table starts (job_id bigint, key text, attempt int, at timestamptz);
"""


def record_start(url: str) -> Any:
    local = threading.local()

    def handler(payload: Any, job: JobContext) -> None:
        at = datetime.now(timezone.utc)  # (before this thread's first connection, which takes a while)
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = psycopg.connect(url, autocommit=True)
        conn.execute("insert into starts (job_id, key, attempt, at) values (%s, %s, %s, %s)",
                     (job.id, payload["key"], job.attempt, at))
        time.sleep(0.02)

    return handler


def per_key(rows: list[tuple[str, datetime]]) -> dict[str, list[datetime]]:
    out: dict[str, list[datetime]] = {k: [] for k in KEYS}
    for key, at in rows:
        out[key].append(at)
    return {k: sorted(v) for k, v in out.items()}


def test_a_worker_keeps_every_key_to_its_rate_and_claims_again_when_the_key_may_start(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(SETUP)
        conn.execute(STAMPS)
        conn.execute("select q.configure('api', key_concurrency => %s, key_rate => %s, key_per => %s,"
                     " keep_completed => true)", (RATE, RATE, WINDOW))
        payloads = [{"key": k, "n": i} for i in range(PER_KEY) for k in KEYS]
        conn.execute("select q.enqueue_many('api', %s, concurrency_keys => %s)",
                     (Jsonb(payloads), [p["key"] for p in payloads]))
        # Poll every 60 s: starts every second come from the key rate's own timer (pgq.claim_retry_in), or
        # (late) from the reaper's promotion of the put-off jobs; on_time below tells the two apart.
        worker = Worker(record_start(db_url), "api", database_url=db_url, concurrency=15, poll_interval=60.0)
        begun = time.monotonic()
        worker.start()
        try:
            wait_for(lambda: conn.execute("select count(*) from starts").fetchone()[0] >= len(payloads), 15,
                     "every job started")
            took = time.monotonic() - begun
            wait_for(lambda: conn.execute("select count(*) from q_data.job").fetchone()[0] == 0, 10, "every job "
                                                                                                     "finished")
            rounds = worker.rounds_sent
        finally:
            worker.stop()
            assert worker.join(10)
        time.sleep(0.2)  # (a start after the last one would show below)
        runs = conn.execute("select job_id, attempt from starts").fetchall()
        done = conn.execute("select count(*) from q_data.job_history where state = 'completed'").fetchone()[0]
        starts = per_key(conn.execute("select key, at from starts").fetchall())
        stamps = per_key(conn.execute("select key, used_at from key_rate_stamp").fetchall())

    # Every job ran exactly once, on its first attempt, and completed.
    assert len(runs) == len({j for j, _ in runs}) == len(payloads) == done
    assert {a for _, a in runs} == {1}
    first = min(min(v) for v in stamps.values())
    lateness: list[float] = []
    for key in KEYS:
        s, h = stamps[key], starts[key]
        assert len(s) == len(h) == PER_KEY, (key, len(s), len(h))
        # The rate: never more than RATE starts of one key in a window, counted on the claims' own stamps...
        assert most_in_window(s, WINDOW)[0] <= RATE, (key, s)
        # ... and on the handlers' starts (which follow their claims by a few ms, unevenly: 100 ms leeway).
        assert most_in_window(h, WINDOW - timedelta(milliseconds=100))[0] <= RATE, (key, h)
        # Not late either: the k-th start comes within LATE of the earliest time the key's window allowed
        # it (its start RATE starts before, plus the window; the first RATE: when the worker began).
        for k in range(PER_KEY):
            allowed = s[k - RATE] + WINDOW if k >= RATE else first
            late = (h[k] - allowed).total_seconds()
            assert late <= LATE, f"{key}: start {k} came {late:.3f} s after its key's window allowed it"
            if k >= RATE:
                lateness.append(late)
    # And mostly on time: the claims at the key's next start (pgq.claim_retry_in) start them, not the
    # reaper's promotion about once a second (which alone would leave them 0.5 s late on average).
    on_time = sum(1 for late in lateness if late <= 0.25) / len(lateness)
    assert on_time >= 0.75, f"only {on_time:.0%} of the rate-bound starts came within 0.25 s: {sorted(lateness)}"
    # 20 jobs per key at 5 a second: 3 s of windows (the first 5 at once), plus the start-up.
    spread = (max(max(v) for v in starts.values()) - min(min(v) for v in starts.values())).total_seconds()
    assert 2.9 <= spread <= 5.0, f"the starts took {spread:.2f} s"
    assert took <= 8.0, f"every job started {took:.2f} s after the worker was started"
    # No busy wait: 60 jobs in 4 windows take a few rounds per window and key, not one every few ms.
    assert rounds <= 150, f"{rounds} round trips for {len(payloads)} jobs"  # (40-70 seen; a 5 ms loop: 600)
    print(f"key rate {RATE}/s x {len(KEYS)} keys: {len(payloads)} jobs over {spread:.2f} s in {rounds} rounds;"
          f" latest start {max(lateness) * 1000:.0f} ms after its window allowed it, {on_time:.0%} within 250 ms")


def test_pgq_configure_key_rate_and_limits_commands(db_url: str) -> None:
    from test_pgq_command import no_traceback, pgq

    done = pgq(db_url, "configure", "feeds", "--key-concurrency", "4", "--key-rate", "10")
    assert done.returncode == 0, done.stderr
    lines = {line.split()[1]: line.split()[3] for line in done.stdout.splitlines()
             if len(line.split()) == 5 and line.split()[1] in ("key_rate", "key_per", "key_concurrency")}
    assert lines == {"key_concurrency": "4", "key_rate": "10", "key_per": "1s"}, done.stdout
    listing = pgq(db_url, "limits", "feeds")
    assert listing.returncode == 0, listing.stderr
    assert "key rate" in listing.stdout and "10/1s" in listing.stdout, listing.stdout

    assert pgq(db_url, "configure", "feeds", "--key-rate", "3", "--key-per", "1m").returncode == 0
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert conn.execute("select key_rate, key_per from q_data.queue where name = 'feeds'").fetchone() == (
            3, timedelta(minutes=1))
    assert "3/1m" in pgq(db_url, "limits").stdout

    done = pgq(db_url, "configure", "feeds", "--unlimit", "key_rate")
    assert done.returncode == 0, done.stderr
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert conn.execute("select key_concurrency, key_rate, key_per from q_data.queue where name = "
                            "'feeds'").fetchone() \
            == (4, None, None)
    assert "3/1m" not in pgq(db_url, "limits").stdout
    for args, code, text in (
        (("configure", "feeds", "--key-rate", "0"), 1, "key_rate must be between 1 and 1000"),
        (("configure", "plain", "--key-rate", "5"), 1, "needs key_concurrency"),
        (("configure", "feeds", "--key-rate", "5", "--key-per", "soon"), 2, "not an interval"),
        (("configure", "feeds", "--unlimit", "speed"), 2, "key_rate"),
    ):
        done = pgq(db_url, *args)
        assert done.returncode == code and text in done.stderr, (args, done.returncode, done.stderr)
        no_traceback(done)
