"""What a measurement hands to the report: tables, targets, seed figures, charts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    caption: str
    headers: list[str]
    rows: list[list[str]]


@dataclass
class Target:
    """One goal of the benchmark (design.md#what-the-benchmarks-hold-pgq-to) and whether this run kept it."""

    name: str
    holds: bool | None  # None: not measured in this run
    detail: str


@dataclass
class Section:
    key: str
    title: str
    method: str
    tables: list[Table] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    seed: str = ""
    charts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
