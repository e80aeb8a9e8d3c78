"""Schedules fire exactly once per slot through worker kills and a PostgreSQL
crash: the short version (about 40 s) of soak suite 12 (soak/schedules.py),
on the soak cluster (it is restarted, so never the shared one).

Marked ``soak``: `make soak` runs it (and suite 12's 3-minute version); `make test` leaves it out.
What `make test` still runs for the promise "once per slot": pgTAP's schedule/ folder (the ledger
refuses a second fire of a slot, a schedule locked by another session is skipped, catch-up, DST) and
tests/worker/test_schedules.py (real processes syncing schedules at once)."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest

from .figures import record
from .soak import schedules
from .soak.cluster import Cluster

SECONDS = float(os.environ.get("PGQ_SCHEDULE_CHAOS_SECONDS", "40"))


@pytest.mark.soak
def test_schedules_fire_once_per_slot_through_kills_and_a_postgres_crash(tmp_path: Path) -> None:
    cluster = Cluster()
    try:
        with psycopg.connect(cluster.server_url, connect_timeout=2):
            ours = False  # `make soak` runs it on the soak cluster it started: leave that running
    except psycopg.OperationalError:
        ours = True
    try:
        figures = schedules.run(cluster, tmp_path, seconds=SECONDS)
    finally:
        cluster.drop_databases()
        if ours:
            cluster.stop()
    record("12", f"schedule chaos ({SECONDS:g} s)", **figures)
    assert figures["kills"] >= 3 and figures["pg_restarts"] == 1, figures
    assert figures["fires"] > 200 * (SECONDS - 10), figures  # it really fired: ~206 per second
    assert figures["double_fires_ledger"] == 0, figures
    assert figures["double_fires_jobs"] == 0, figures
    assert figures["double_fires_seen"] == 0, figures
    assert figures["missed_slots"] == 0, figures
    assert figures["records_agree"], figures
    assert figures["stalled_schedules"] == 0, figures
