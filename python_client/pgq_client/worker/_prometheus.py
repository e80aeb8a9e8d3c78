"""A worker's Prometheus metrics: its own registry, served on ``metrics_host:metrics_port`` (opt-in).

Imported only when a worker is given ``metrics_port`` (the ``metrics`` extra:
``prometheus_client``). Names follow Prometheus' conventions: a ``pgq_worker_``
prefix, base units (``_seconds``), ``_total`` on counters, queues as a label.

========================================  =========  ==================================================
name                                      type       what
========================================  =========  ==================================================
pgq_worker_jobs_claimed_total             counter    jobs claimed, per queue
pgq_worker_jobs_completed_total           counter    jobs completed (the database accepted the result)
pgq_worker_jobs_failed_total              counter    failed attempts, per queue and ``status`` (retry, dead)
pgq_worker_jobs_lost_total                counter    claims lost: the result was refused, or a heartbeat
                                                     said the claim was reaped or taken over
pgq_worker_jobs_reaped_total              counter    lost claims (of any worker) this worker's reaps returned
pgq_worker_job_duration_seconds           histogram  handler run time, per queue
pgq_worker_claim_duration_seconds         histogram  round trips that carried a claim (with the outcomes
                                                     sent in the same statement), per queue
pgq_worker_reap_duration_seconds          histogram  this worker's ``q.reap`` calls
pgq_worker_jobs_held                      gauge      claimed and not finished (running or waiting for a
                                                     free handler), per queue
pgq_worker_jobs_running                   gauge      handlers running now, per queue
pgq_worker_rounds_total                   counter    round trips sent
pgq_worker_rounds_in_flight               gauge      round trips on their way now
pgq_worker_events_total                   counter    worker events by name (worker_started, job_failed,
                                                     job_lost, db_unavailable, ...: the log events)
pgq_worker_info                           gauge      1, with the worker's name and mode as labels
========================================  =========  ==================================================

The gauges and the round counter are read from the worker's books when
scraped (a custom collector), so they cost nothing between scrapes.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from ._observer import Observer, OutcomeName

# Round trips: about 0.3 ms on a local socket, tens of ms over a network or under load.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Handlers: from no-op jobs to minutes.
JOB_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0)


class Books:
    """What the scrape-time collector reads from the worker (the ledger and the worker answer these)."""

    def __init__(self, held: Callable[[], Iterable[tuple[str, bool]]], rounds: Callable[[], int],
                 in_flight: Callable[[], int]) -> None:
        self.held = held  # (queue, started) per job claimed and not finished
        self.rounds = rounds
        self.in_flight = in_flight


class _BooksCollector(Collector):
    def __init__(self, books: Books, queues: Iterable[str], name: str, mode: str) -> None:
        self.books = books
        self.queues = tuple(queues)
        self.name = name
        self.mode = mode

    def collect(self) -> Iterator[Any]:
        held = GaugeMetricFamily("pgq_worker_jobs_held", "Jobs claimed by this worker and not finished"
                                 " (running or waiting for a free handler).", labels=["queue"])
        running = GaugeMetricFamily("pgq_worker_jobs_running", "Handlers of this worker running now.",
                                    labels=["queue"])
        by_queue_held: Tally[str] = Tally()
        by_queue_running: Tally[str] = Tally()
        for queue, started in self.books.held():
            by_queue_held[queue] += 1
            if started:
                by_queue_running[queue] += 1
        for queue in self.queues:
            held.add_metric([queue], by_queue_held[queue])
            running.add_metric([queue], by_queue_running[queue])
        yield held
        yield running
        rounds = CounterMetricFamily("pgq_worker_rounds", "Round trips this worker has sent (claims and outcomes).")
        rounds.add_metric([], self.books.rounds())
        yield rounds
        flight = GaugeMetricFamily("pgq_worker_rounds_in_flight", "Round trips of this worker on their way now.")
        flight.add_metric([], self.books.in_flight())
        yield flight
        info = GaugeMetricFamily("pgq_worker_info", "This worker (always 1).", labels=["name", "mode"])
        info.add_metric([self.name, self.mode], 1)
        yield info


class PrometheusObserver(Observer):
    """Counts and times what the worker reports, in a registry of its own, served over HTTP."""

    enabled = True

    def __init__(self, queues: Iterable[str], books: Books, *, name: str, mode: str) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.queues = tuple(queues)
        self._claimed = Counter("pgq_worker_jobs_claimed", "Jobs claimed by this worker.", ["queue"], registry=r)
        self._completed = Counter("pgq_worker_jobs_completed", "Jobs this worker completed.", ["queue"], registry=r)
        self._failed = Counter("pgq_worker_jobs_failed", "Failed attempts recorded by this worker, by what q.fail"
                               " did (retry: scheduled again; dead: moved to the history).", ["queue", "status"],
                               registry=r)
        self._lost = Counter("pgq_worker_jobs_lost", "Claims this worker lost (result refused, or a heartbeat said"
                             " reaped or taken over).", ["queue"], registry=r)
        self._reaped = Counter("pgq_worker_jobs_reaped", "Lost claims returned to their queues by this worker's"
                               " turns at q.reap.", registry=r)
        self._job_seconds = Histogram("pgq_worker_job_duration_seconds", "Handler run time.", ["queue"],
                                      buckets=JOB_BUCKETS, registry=r)
        self._claim_seconds = Histogram("pgq_worker_claim_duration_seconds", "Round trips that carried a claim"
                                        " (with the outcomes sent in the same statement).", ["queue"],
                                        buckets=LATENCY_BUCKETS, registry=r)
        self._reap_seconds = Histogram("pgq_worker_reap_duration_seconds", "This worker's q.reap calls.",
                                       buckets=LATENCY_BUCKETS, registry=r)
        self._events = Counter("pgq_worker_events", "Worker events by name (the log events).", ["event"], registry=r)
        # Children bound once (which also makes every queue's series exist from the start, at 0):
        # .labels() per call costs a dict lookup and a lock.
        self._by_queue = {q: (self._claimed.labels(q), self._completed.labels(q), self._failed.labels(q, "retry"),
                              self._failed.labels(q, "dead"), self._lost.labels(q), self._job_seconds.labels(q),
                              self._claim_seconds.labels(q)) for q in self.queues}
        self.registry.register(_BooksCollector(books, self.queues, name, mode))
        self._server: Any = None
        self.address: tuple[str, int] | None = None

    def serve(self, host: str, port: int) -> tuple[str, int]:
        """Start the HTTP endpoint (a daemon thread); returns the address it listens on."""
        server, _thread = start_http_server(port, addr=host, registry=self.registry)
        self._server = server
        self.address = (host, int(server.server_port))
        return self.address

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # -- hooks ---------------------------------------------------------------------------------

    def claimed(self, queue: str, asked: int, got: int, seconds: float) -> None:
        children = self._by_queue.get(queue)
        if children is None:
            return
        if got:
            children[0].inc(got)
        children[6].observe(seconds)

    def outcomes(self, tally: Iterable[tuple[str, OutcomeName, float]]) -> None:
        counts: Tally[tuple[str, OutcomeName]] = Tally()
        for queue, outcome, seconds in tally:
            children = self._by_queue.get(queue)
            if children is None:
                continue
            counts[(queue, outcome)] += 1
            children[5].observe(seconds)
        for (queue, outcome), n in counts.items():
            completed, retry, dead, lost = self._by_queue[queue][1:5]
            {"completed": completed, "retry": retry, "dead": dead, "lost": lost}[outcome].inc(n)

    def lost(self, queue: str) -> None:
        children = self._by_queue.get(queue)
        if children is not None:
            children[4].inc()

    def reaped(self, count: int, seconds: float) -> None:
        if count:
            self._reaped.inc(count)
        self._reap_seconds.observe(seconds)

    def event(self, name: str) -> None:
        self._events.labels(name).inc()
