"""Failover to a streaming standby under load (issue 25).

A primary and a physical standby (soak/standby.py: both local clusters owned by
the test, ``pg_basebackup``, the standby named in ``synchronous_standby_names``
with ``synchronous_commit = on``); 8 worker processes and a producer connect
with one multi-host conninfo (``host=a,b ... target_session_attrs=read-write``).
Under load the standby is promoted and the old primary stopped with
``-m immediate``. The independent books (books.py, written through the same
conninfo, so they follow the failover) must show: 0 committed enqueues lost,
every job finished, no job run twice (the workers take their claims back on
the new primary with q.adopt within the reaper's restart grace), and every
worker running jobs again within 10 s.

Ports: PGQ_FAILOVER_PG_PORTS (default "54364,54365").
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from . import books
from .soak.load import Producer, wait_drained
from .soak.pg_crash import RESUME_PROMISE, resumed
from .soak.standby import Pair
from .workers import Fleet

pytestmark = pytest.mark.slow

WORKERS = 8
JOBS = 600
RATE = 40.0  # jobs/s: 15 s of load
FAILOVER_AT = 6.0  # seconds after the load starts
PORTS = [int(p) for p in os.environ.get("PGQ_FAILOVER_PG_PORTS", "54364,54365").split(",")]


@pytest.fixture
def pair() -> Iterator[Pair]:
    servers = Pair("failover-test", PORTS[0], PORTS[1], synchronous=True)
    try:
        servers.start_primary()
        yield servers
    finally:
        servers.stop()


def test_failover_to_a_synchronous_standby_loses_no_enqueue_and_re_runs_nothing(pair: Pair, tmp_path: Path) -> None:
    single = pair.primary.new_database("failover")
    dbname = psycopg.conninfo.conninfo_to_dict(single)["dbname"]
    with psycopg.connect(single, autocommit=True) as conn:
        books.install(conn)
        conn.execute("select q.configure('failover', max_crashes => 20)")
    pair.start_standby()
    url = pair.conninfo(str(dbname))
    fleet = Fleet(url, tmp_path / "workers")
    try:
        workers = [fleet.start(f"failover-{i}", "failover", concurrency=3, batch_size=4) for i in range(WORKERS)]
        fleet.wait_ready(workers)
        producer = Producer(url, "failover", JOBS, RATE, ms=(100, 400))
        load_started = time.monotonic()
        producer.start()
        time.sleep(max(0.0, load_started + FAILOVER_AT - time.monotonic()))
        with psycopg.connect(url, autocommit=True) as conn:
            running = conn.execute("select count(*) from q_data.job where state = 'r'").fetchone()[0]
        switch_s = pair.promote_and_kill_primary()
        with psycopg.connect(url, autocommit=True) as conn:
            back_db = conn.execute("select clock_timestamp()").fetchone()[0]
        resume = resumed(url, [w.pid for w in workers], back_db, 3 * RESUME_PROMISE)
        assert all(w.alive() for w in workers), "a worker process exited at the failover"
        producer.join(120)
        assert producer.error is None, f"producer failed: {producer.error!r}"
        with psycopg.connect(url, autocommit=True) as conn:
            assert not conn.execute("select pg_is_in_recovery()").fetchone()[0]
            wait_drained(conn, 150)
            fleet.stop_all()
            result = books.audit(conn, producer.committed)
        events = fleet.event_counts()
        figures = {**result.figures(), "running_at_failover": running, "switch_s": round(switch_s, 2),
                   "resume_s": round(resume, 2), "enqueue_calls_failed": producer.failures,
                   "adopted_events": events.get("jobs_adopted", 0), "lost_events": events.get("job_lost", 0)}
        print(figures)
        assert result.lost == 0, f"committed enqueues lost: {figures}"
        assert result.unfinished == 0 and result.completed_without_execution == 0, figures
        assert result.duplicate_terminal_writes == 0, figures
        assert result.duplicate_executions == 0, f"jobs ran twice although every worker survived: {figures}"
        assert resume < RESUME_PROMISE, figures
    finally:
        fleet.close()
