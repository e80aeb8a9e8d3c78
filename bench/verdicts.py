"""The side-by-side goals as Targets: pgq ahead of a contender on one row, measured in this run
(design.md#what-the-benchmarks-hold-pgq-to)."""

from __future__ import annotations

from collections.abc import Callable

from .model import Target


def ahead(
    name: str,
    ours: tuple[str, float | None],
    theirs: tuple[str, float | None],
    *,
    higher_is_better: bool = True,
    fmt: Callable[[float], str] = lambda v: f"{v:,.0f}",
    within: float = 1.0,
) -> Target:
    """pgq's figure beats theirs (or, with within > 1, is no worse than within x theirs).

    A figure that is missing or not a number (a contender skipped, a capped
    run) gives "not measured", never a verdict.
    """
    (our_label, a), (their_label, b) = ours, theirs
    if a is None or b is None or a != a or b != b:
        return Target(name=name, holds=None, detail=f"{their_label} or {our_label} not measured in this run")
    if higher_is_better:
        holds = a * within > b if within == 1.0 else a * within >= b
        r = a / b if b else float("inf")
    else:
        holds = a < b * within if within == 1.0 else a <= b * within
        r = b / a if a else float("inf")
    return Target(name=name, holds=holds,
                  detail=f"{our_label} {fmt(a)} vs {their_label} {fmt(b)} ({r:.2f}x)")
