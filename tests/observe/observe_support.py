"""Helpers of the monitoring tests: scrape a Prometheus endpoint and read its samples."""

from __future__ import annotations

import urllib.request
from typing import Any

import psycopg
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(address: tuple[str, int]) -> Samples:
    """Every sample of http://host:port/metrics, by (name, sorted labels)."""
    host, port = address
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(samples: Samples, metric: str, /, **labels: str) -> float | None:
    return samples.get((metric, tuple(sorted(labels.items()))))


def one(url: str, query: str, params: tuple[Any, ...] = ()) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(query, params).fetchone()
        assert row is not None
        return row[0]


def wait_for(predicate: Any, timeout: float, what: str, step: float = 0.02) -> Any:
    import time

    deadline = time.monotonic() + timeout
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)
