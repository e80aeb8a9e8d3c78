"""Failover to a streaming standby under load: the short version of soak suite 13
(design.md#failover-and-several-databases).

A primary and a physical standby (soak/standby.py: both local clusters owned by
the test, ``pg_basebackup``, the standby named in ``synchronous_standby_names``
with ``synchronous_commit = on``); 8 worker processes and 4 producers connect
with one multi-host conninfo (``host=a,b ... target_session_attrs=read-write``).
Under load the standby is promoted and the old primary stopped with
``-m immediate``. The independent books (books.py, written through the same
conninfo, so they follow the failover) must show: 0 committed enqueues lost,
every job finished, no job run twice (the workers take their claims back on
the new primary with q.adopt within the reaper's restart grace), and every
worker running jobs again within 10 s. The asynchronous mode is measured by
``make soak`` (soak/failover.py).

Ports: PGQ_FAILOVER_PG_PORTS (default "54364,54365").
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .figures import record
from .soak.failover import failures, measure
from .soak.standby import Pair

pytestmark = pytest.mark.slow

PORTS = [int(p) for p in os.environ.get("PGQ_FAILOVER_PG_PORTS", "54364,54365").split(",")]


def test_failover_to_a_synchronous_standby_loses_no_enqueue_and_re_runs_nothing(tmp_path: Path) -> None:
    pair = Pair("failover-test", PORTS[0], PORTS[1], synchronous=True)
    figures = measure(pair, tmp_path / "workers", jobs=600, rate=40.0, failover_at=6.0)
    record("13", "failover (synchronous standby, make test)", **figures)
    assert figures["new_primary_writable"], figures
    assert failures(figures, zero_loss=True) == "none", figures
