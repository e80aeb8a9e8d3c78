"""``pgq metrics``: a Prometheus exporter of the queues as the database sees them (the ``metrics`` extra).

    pgq metrics --port 9632            # http://127.0.0.1:9632/metrics

Each scrape reads the database (no background polling), through
:mod:`pgq_client.observe`, at a bounded cost: one connection, one scrape's
queries at a time (concurrent scrapes wait and share the answer), answers
reused for ``min_interval`` seconds (a scrape storm costs at most one read
per interval), and every statement under ``statement_timeout``. When the
database cannot be read, ``pgq_up`` is 0 and the other series are left out
(Prometheus then shows them as absent, not as stale zeros).

The role it needs: ``pgq_monitor`` (revision 0008: counts, queue names,
limits and server health; no payload, no error text, no other role's
session details). ``pgq_viewer`` works too (it is a member of pgq_monitor),
and so does ``pgq_admin``, but neither is needed.

Cardinality is bounded whatever the number of queue names (revision 0008; 0007
made 600,002 series at 50,000 names: design.md#queue-names-cost-nothing-when-idle):

* at most ``max_queues_read`` (default 1000) queues are read per scrape:
  q.stats's ACTIVE queues (jobs, history, settings, a schedule or an outcome
  in the last hour) in name order; ``pgq_exporter_queues_truncated`` is 1
  when there were more;
* of those, the ``max_queue_labels`` (default 100) with the largest backlog
  (waiting + held + scheduled + running) get their own ``queue`` label; the
  others are summed into ``queue="_other"`` (no queue name can start with
  "_"), and ``pgq_exporter_queues`` says how many were read, labelled and
  folded;
* the ``*_total`` counters label the ``max_queue_labels`` queues with the most
  outcomes and fold the rest into ``_other``, which can go down when a queue
  moves in or out of the top (Prometheus reads that as a counter reset).

So one scrape is at most about ``14 * (max_queue_labels + 1)`` queue series (seven job states, five
estimated flags, the oldest wait and paused), plus the limits and counters.

=======================================  =========  ====================================================
name                                     type       what
=======================================  =========  ====================================================
pgq_up                                   gauge      1 if the last read of the database worked
pgq_queue_jobs                           gauge      jobs per ``queue`` and ``state`` (waiting: due now and
                                                    claimable; held: due, held back by a concurrency key
                                                    (revision 0008); scheduled: later; running; dead;
                                                    pending: waiting for parents; on_hold: a parent failed
                                                    under the hold policy (both revision 0010))
pgq_queue_jobs_estimated                 gauge      1 where that count is the planner's estimate (q.stats
                                                    counts exactly up to a bound; revision 0006)
pgq_queue_oldest_waiting_seconds         gauge      how long the oldest due job has waited
pgq_queue_paused                         gauge      1 if the queue is paused (``_other``: how many are)
pgq_queue_limit                          gauge      a flow-control limit per ``queue`` and ``limit``
                                                    (concurrency, key_concurrency, rate; q.limits, 0005)
pgq_queue_limit_used                     gauge      how much of it is in use now (running jobs, keys with
                                                    a busy slot, starts in the rate window)
pgq_queue_jobs_completed_total           counter    jobs completed (q.throughput_totals; revision 0006)
pgq_queue_jobs_failed_total              counter    failed attempts that will retry (idem)
pgq_queue_jobs_dead_total                counter    jobs that went dead (idem)
pgq_exporter_queues                      gauge      queues ``read``, ``labelled`` and ``folded`` into _other
pgq_exporter_queues_truncated            gauge      1 if more active queues exist than were read
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
STATES = ("waiting", "held", "scheduled", "running", "dead", "pending", "on_hold")
BACKLOG = ("waiting", "held", "scheduled", "running", "pending", "on_hold")
# States q.stats counts apart only from a later revision (held 0008, pending and on_hold 0010): an older
# database's rows lack the column, and no series is sent for it.
LATER = ("held", "pending", "on_hold")
# States only workflows use: pgq_queue_jobs_estimated is sent for them only where it is 1.
RARE = ("pending", "on_hold")
OTHER = "_other"  # the label of the queues folded together (a queue name cannot start with "_")
MAX_QUEUE_LABELS = 100
MAX_QUEUES_READ = observe.QUEUES_PAGE
LIMITS = (("concurrency", "running"), ("key_concurrency", "busy_keys"), ("rate", "started_in_window"))
log = logging.getLogger("pgq.metrics")


class QueueCollector(Collector):
    """Reads the queues from the database when scraped (bounded: see the module's text)."""

    def __init__(self, database_url: str, *, min_interval: float = 1.0,
                 query_timeout: timedelta = timedelta(seconds=5), connect_timeout: int = 5,
                 max_queue_labels: int = MAX_QUEUE_LABELS, max_queues_read: int = MAX_QUEUES_READ) -> None:
        if not 1 <= max_queue_labels <= max_queues_read:
            raise ValueError(f"max_queue_labels must be between 1 and max_queues_read ({max_queues_read}),"
                             f" got {max_queue_labels}")
        self.database_url = database_url
        self.max_queue_labels = max_queue_labels
        self.max_queues_read = max_queues_read
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
            # One more than asked: whether there were more active queues than read.
            rows = observe.queues(conn, max_queues=self.max_queues_read + 1)
            totals = observe.throughput_totals(conn) if feats.may("throughput_totals") else None
            limits = observe.limits(conn) if feats.may("limits") else None
            stale = observe.staleness(conn)
        except psycopg.Error as exc:
            log.warning("metrics: cannot read the database: %s", str(exc).strip())
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            up.add_metric([], 0)
            return [up]
        seconds = time.perf_counter() - started
        up.add_metric([], 1)
        truncated = len(rows) > self.max_queues_read
        rows = rows[: self.max_queues_read]
        labelled, folded = _top(rows, self.max_queue_labels, _backlog)
        out: list[Any] = [up]
        jobs = GaugeMetricFamily("pgq_queue_jobs", "Jobs per queue and state (waiting: due now and claimable;"
                                 " held: due, held back by a concurrency key; scheduled: later; pending: waiting for"
                                 " parents; on_hold: a parent failed under the hold policy).",
                                 labels=["queue", "state"])
        estimated = GaugeMetricFamily("pgq_queue_jobs_estimated", "1 where pgq_queue_jobs is the planner's"
                                      " estimate rather than an exact count.", labels=["queue", "state"])
        oldest = GaugeMetricFamily("pgq_queue_oldest_waiting_seconds", "How long the oldest due job has waited.",
                                   labels=["queue"])
        paused = GaugeMetricFamily("pgq_queue_paused", "1 if the queue is paused (_other: how many are).",
                                   labels=["queue"])
        has_flags = False
        groups = [(row["queue"], [row]) for row in labelled] + ([(OTHER, folded)] if folded else [])
        for queue, members in groups:
            for state in STATES:
                if state in LATER and all(m.get(state) is None for m in members):
                    continue  # a database before that revision does not count them apart
                jobs.add_metric([queue, state], sum(m.get(state) or 0 for m in members))
                flags = [m.get(f"{state}_exact") for m in members]
                if any(f is not None for f in flags):
                    has_flags = True
                    exact = all(f is not False for f in flags)
                    if state in RARE and exact:
                        continue  # only where estimated: two series per queue fewer at 100 labels
                    estimated.add_metric([queue, state], 0 if exact else 1)
            waits = [m["oldest_waiting"].total_seconds() for m in members if m["oldest_waiting"] is not None]
            oldest.add_metric([queue], max(waits, default=0))
            paused.add_metric([queue], sum(1 for m in members if m["paused"]))
        out += [jobs, oldest, paused] + ([estimated] if has_flags else [])
        if limits is not None:
            limit = GaugeMetricFamily("pgq_queue_limit", "A flow-control limit of the queue.",
                                      labels=["queue", "limit"])
            used = GaugeMetricFamily("pgq_queue_limit_used", "How much of the limit is in use now (running jobs,"
                                     " keys with a busy slot, starts in the rate window).", labels=["queue", "limit"])
            shown = {row["queue"] for row in labelled}
            for row in limits:
                if row["queue"] not in shown:
                    continue  # the same label cap as the job counts
                for name, in_use in LIMITS:
                    if row.get(name) is not None:
                        limit.add_metric([row["queue"], name], row[name])
                        used.add_metric([row["queue"], name], row.get(in_use) or 0)
            out += [limit, used]
        if totals is not None:
            top, rest = _top(totals, self.max_queue_labels, lambda r: r["completed"] + r["failed"] + r["dead"])
            for name, what in (("completed", "Jobs completed."), ("failed", "Failed attempts that will retry."),
                               ("dead", "Jobs that went dead.")):
                family = CounterMetricFamily(f"pgq_queue_jobs_{name}", what, labels=["queue"])
                for row in top:
                    family.add_metric([row["queue"]], row[name])
                if rest:
                    family.add_metric([OTHER], sum(r[name] for r in rest))
                out.append(family)
        counted = GaugeMetricFamily("pgq_exporter_queues", "Queues read from q.stats, labelled, and folded into"
                                    " queue=\"_other\".", labels=["kind"])
        counted.add_metric(["read"], len(rows))
        counted.add_metric(["labelled"], len(labelled))
        counted.add_metric(["folded"], len(folded))
        more = GaugeMetricFamily("pgq_exporter_queues_truncated", "1 if more active queues exist than"
                                 " max_queues_read.")
        more.add_metric([], 1 if truncated else 0)
        took = GaugeMetricFamily("pgq_exporter_scrape_duration_seconds", "How long the last read of the database took.")
        took.add_metric([], seconds)
        standby = GaugeMetricFamily("pgq_exporter_standby", "1 if the exporter reads a standby (--read-url):"
                                    " its figures are as old as pgq_exporter_standby_replay_age_seconds at most.")
        standby.add_metric([], 1 if stale.standby else 0)
        out += [counted, more, took, standby]
        if stale.standby and stale.replayed_ago is not None:
            age = GaugeMetricFamily("pgq_exporter_standby_replay_age_seconds", "How long ago the standby replayed"
                                    " its last commit (also grows while the primary commits nothing).")
            age.add_metric([], max(0.0, stale.replayed_ago.total_seconds()))
            out.append(age)
        return out


def _backlog(row: observe.Row) -> int:
    return sum(int(row.get(state) or 0) for state in BACKLOG)


def _top(rows: list[observe.Row], n: int, key: Any) -> tuple[list[observe.Row], list[observe.Row]]:
    """The n rows with the largest key (ties by queue name), and the rest."""
    ranked = sorted(rows, key=lambda r: (-key(r), r["queue"]))
    return ranked[:n], ranked[n:]


class Exporter:
    """The HTTP endpoint: a registry holding a :class:`QueueCollector`, served by prometheus_client's server."""

    def __init__(self, database_url: str, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 min_interval: float = 1.0, query_timeout: float = 5.0,
                 max_queue_labels: int = MAX_QUEUE_LABELS, max_queues_read: int = MAX_QUEUES_READ) -> None:
        self.collector = QueueCollector(database_url, min_interval=min_interval,
                                        query_timeout=timedelta(seconds=query_timeout),
                                        max_queue_labels=max_queue_labels, max_queues_read=max_queues_read)
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
