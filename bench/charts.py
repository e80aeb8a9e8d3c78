"""PNG charts with matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def lines(
    path: Path,
    title: str,
    xlabel: str,
    ylabel: str,
    series: dict[str, Sequence[tuple[float, float]]],
    *,
    logx: bool = False,
    ymin_zero: bool = True,
) -> None:
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    markers = "os^Dvx*P<>"
    for i, (label, points) in enumerate(series.items()):
        if not points:
            continue
        xs, ys = zip(*points, strict=True)
        style = "--" if "ceiling" in label or "ideal" in label else "-"
        ax.plot(xs, ys, style, marker=markers[i % len(markers)], label=label)
    if logx:
        ax.set_xscale("log", base=2)
        xs_all = sorted({x for pts in series.values() for x, _ in pts})
        ax.set_xticks(xs_all)
        ax.set_xticklabels([str(int(x)) for x in xs_all])
    if ymin_zero:
        ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
