"""Figures of a reliability run: each suite records what it measured, and the
soak runner turns them into RELIABILITY.md.

``record`` prints the figures (visible with ``pytest -s``) and, when
``PGQ_RELIABILITY_FIGURES`` names a file, appends them to it as one JSON
object per line. Plain ``make test`` sets no such file, so it never rewrites
a tracked file; ``make soak`` does (see soak/run.py).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

ENV = "PGQ_RELIABILITY_FIGURES"


def record(suite: str, case: str, **figures: Any) -> None:
    """Record one case's figures (numbers and short strings) for suite `suite`."""
    line = {"suite": suite, "case": case, "at": time.strftime("%Y-%m-%d %H:%M:%S"), **figures}
    print(f"\n[suite {suite}] {case}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))
    target = os.environ.get(ENV)
    if target:
        with Path(target).open("a") as out:
            out.write(json.dumps(line, default=str) + "\n")


def load(path: Path) -> list[dict[str, Any]]:
    """Every figure line of a file (later lines of the same suite and case win)."""
    if not path.exists():
        return []
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for text in path.read_text().splitlines():
        if text.strip():
            row = json.loads(text)
            latest[(row["suite"], row["case"])] = row
    return list(latest.values())
