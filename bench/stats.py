"""Medians, percentiles and number formatting for the tables."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return float(ordered[rank - 1])


def rate(value: float) -> str:
    """A throughput figure: 12,345 or 12.3 for small ones."""
    if value != value:
        return "n/a"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def ms(value_s: float) -> str:
    """Seconds shown as milliseconds."""
    if value_s != value_s:
        return "n/a"
    v = value_s * 1000
    return f"{v:,.0f} ms" if v >= 100 else f"{v:.2f} ms"


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")
