"""``pgq metrics``: a Prometheus exporter of the queues as the database sees them (the ``metrics`` extra).

    pgq metrics --port 9632            # http://127.0.0.1:9632/metrics

Each scrape reads the database (no background polling), through
:mod:`pgq_client.observe`, at a bounded cost: one connection, one scrape's
queries at a time (concurrent scrapes wait and share the answer), answers
reused for ``min_interval`` seconds (a scrape storm costs at most one read
per interval), and every statement under ``statement_timeout``. When the
database cannot be read, ``pgq_up`` is 0 and the other series are left out
(Prometheus then shows them as absent, not as stale zeros).

=======================================  =========  ====================================================
name                                     type       what
=======================================  =========  ====================================================
pgq_up                                   gauge      1 if the last read of the database worked
pgq_queue_jobs                           gauge      jobs per ``queue`` and ``state`` (waiting: due now,
                                                    scheduled: later, running, dead)
pgq_queue_jobs_estimated                 gauge      1 where that count is the planner's estimate (q.stats
                                                    counts exactly up to a bound; revision 0006)
pgq_queue_oldest_waiting_seconds         gauge      how long the oldest due job has waited
pgq_queue_paused                         gauge      1 if the queue is paused
pgq_queue_jobs_completed_total           counter    jobs completed (q.throughput_totals; revision 0006)
pgq_queue_jobs_failed_total              counter    failed attempts that will retry (idem)
pgq_queue_jobs_dead_total                counter    jobs that went dead (idem)
pgq_exporter_scrape_duration_seconds     gauge      how long the last read of the database took
=======================================  =========  ====================================================
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import psycopg
from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from . import observe

DEFAULT_PORT = 9632
STATES = ("waiting", "scheduled", "running", "dead")
log = logging.getLogger("pgq.metrics")


class QueueCollector(Collector):
    """Reads the queues from the database when scraped (bounded: see the module's text)."""

    def __init__(self, database_url: str, *, min_interval: float = 1.0,
                 query_timeout: timedelta = timedelta(seconds=5), connect_timeout: int = 5) -> None:
        self.database_url = database_url
        self.min_interval = min_interval
        self.query_timeout = query_timeout
        self.connect_timeout = connect_timeout
        self.reads = 0  # reads of the database so far (a scrape within min_interval of the last reads none)
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        self._families: list[Any] = []
        self._read_at = -1e9

    def collect(self) -> Iterator[Any]:
        with self._lock:
            if time.monotonic() - self._read_at >= self.min_interval:
                self._families = self._read()
                self._read_at = time.monotonic()
            families = list(self._families)
        yield from families

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            conn = psycopg.connect(self.database_url, autocommit=True, connect_timeout=self.connect_timeout,
                                   application_name="pgq-metrics")
            observe.bound(conn, self.query_timeout)
            self._conn = conn
        return self._conn

    def _read(self) -> list[Any]:
        up = GaugeMetricFamily("pgq_up", "1 if the last read of the database worked.")
        started = time.perf_counter()
        self.reads += 1
        try:
            conn = self._connection()
            feats = observe.features(conn)
            rows = observe.queues(conn)
            totals = observe.throughput_totals(conn) if feats.may("throughput_totals") else None
        except psycopg.Error as exc:
            log.warning("metrics: cannot read the database: %s", str(exc).strip())
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            up.add_metric([], 0)
            return [up]
        seconds = time.perf_counter() - started
        up.add_metric([], 1)
        out: list[Any] = [up]
        jobs = GaugeMetricFamily("pgq_queue_jobs", "Jobs per queue and state (waiting: due now; scheduled: later).",
                                 labels=["queue", "state"])
        estimated = GaugeMetricFamily("pgq_queue_jobs_estimated", "1 where pgq_queue_jobs is the planner's"
                                      " estimate rather than an exact count.", labels=["queue", "state"])
        oldest = GaugeMetricFamily("pgq_queue_oldest_waiting_seconds", "How long the oldest due job has waited.",
                                   labels=["queue"])
        paused = GaugeMetricFamily("pgq_queue_paused", "1 if the queue is paused.", labels=["queue"])
        has_flags = False
        for row in rows:
            queue = row["queue"]
            for state in STATES:
                jobs.add_metric([queue, state], row[state])
                flag = row.get(f"{state}_exact")
                if flag is not None:
                    has_flags = True
                    estimated.add_metric([queue, state], 0 if flag else 1)
            waited = row["oldest_waiting"]
            oldest.add_metric([queue], waited.total_seconds() if waited is not None else 0)
            paused.add_metric([queue], 1 if row["paused"] else 0)
        out += [jobs, oldest, paused] + ([estimated] if has_flags else [])
        if totals is not None:
            for name, what in (("completed", "Jobs completed."), ("failed", "Failed attempts that will retry."),
                               ("dead", "Jobs that went dead.")):
                family = CounterMetricFamily(f"pgq_queue_jobs_{name}", what, labels=["queue"])
                for row in totals:
                    family.add_metric([row["queue"]], row[name])
                out.append(family)
        took = GaugeMetricFamily("pgq_exporter_scrape_duration_seconds", "How long the last read of the database took.")
        took.add_metric([], seconds)
        out.append(took)
        return out


class Exporter:
    """The HTTP endpoint: a registry holding a :class:`QueueCollector`, served by prometheus_client's server."""

    def __init__(self, database_url: str, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 min_interval: float = 1.0, query_timeout: float = 5.0) -> None:
        self.collector = QueueCollector(database_url, min_interval=min_interval,
                                        query_timeout=timedelta(seconds=query_timeout))
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self.collector)
        self.host = host
        self.port = port
        self._server: Any = None

    def start(self) -> tuple[str, int]:
        """Serve in a background thread; returns (host, port) (port 0 picks a free one)."""
        server, _thread = start_http_server(self.port, addr=self.host, registry=self.registry)
        self._server = server
        self.port = int(server.server_port)
        return self.host, self.port

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self.collector.close()
