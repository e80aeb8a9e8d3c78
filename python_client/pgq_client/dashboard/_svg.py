"""Sparklines as inline SVG, made of numbers only (nothing from the database but counts reaches the markup)."""

from __future__ import annotations

from collections.abc import Sequence

WIDTH = 120
HEIGHT = 24


def sparkline(values: Sequence[float], *, width: int = WIDTH, height: int = HEIGHT, label: str = "") -> str:
    """An ``<svg>`` polyline of ``values`` (oldest first), scaled to its own maximum; a flat line for all zeros."""
    n = len(values)
    top = max(values) if values else 0
    step = width / max(1, n - 1)
    points = []
    for i, v in enumerate(values):
        y = height - 1 - ((float(v) / top) * (height - 2) if top > 0 else 0.0)
        points.append(f"{i * step:.1f},{y:.1f}")
    title = f"<title>{_text(label)}</title>" if label else ""
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
            f' role="img" aria-label="{_text(label)}">{title}'
            f'<polyline fill="none" stroke="currentColor" stroke-width="1.5" points="{" ".join(points)}"/></svg>')


def _text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
