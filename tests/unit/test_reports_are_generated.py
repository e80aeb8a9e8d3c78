"""RELIABILITY.md and BENCHMARKS.md are written by their scripts from stored figures, never by hand.

`make soak` keeps the figures of the run that wrote RELIABILITY.md in
tests/reliability/soak/last_run.json; `make bench*` keeps the raw results of a run that writes
BENCHMARKS.md (or one of its blocks) in bench/runs/. Each test renders the stored figures again with
the report code and fails when the committed report says anything else: an edit by hand, or a change
of the report code without a new run. A part of BENCHMARKS.md whose run predates bench/runs/ (its raw
results were not kept) is not covered until it is measured again; the test names what it covered.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from reliability.soak import report as soak_report  # noqa: E402

from bench import report  # noqa: E402
from bench.__main__ import STANDALONE  # noqa: E402


def test_reliability_md_is_what_the_stored_figures_of_its_run_render() -> None:
    run = json.loads((ROOT / soak_report.FIGURES).read_text())
    assert (ROOT / "RELIABILITY.md").read_text() == soak_report.render(run), (
        "RELIABILITY.md differs from what tests/reliability/soak/report.py renders from the figures of its run:"
        " run `make soak` (never edit it by hand)")


def test_benchmarks_md_is_what_the_stored_runs_render(tmp_path: Path) -> None:
    stored = sorted((ROOT / "bench" / "runs").glob("full*.json"))
    assert stored, "no stored bench run in bench/runs/"
    original = (ROOT / "BENCHMARKS.md").read_text()
    copy = tmp_path / "BENCHMARKS.md"
    copy.write_text(original)
    covered = []
    for raw in stored:
        sections, env = report.read_json(raw)
        regular = [s for s in sections if s.key not in STANDALONE]
        if raw.name == "full.json" and regular:
            from bench import explain

            total = float(env["run time"].split()[0])
            report.write(copy, regular, env, "bench/charts", "full", total, closing=explain.closing(regular))
        report.write_blocks(copy, [s for s in sections if s.key in STANDALONE], env, "bench/charts", "full")
        covered += [s.key for s in sections]
    print("rendered again from bench/runs/:", ", ".join(covered))
    assert copy.read_text() == original, (
        "BENCHMARKS.md differs from what bench/report.py renders from bench/runs/: re-run the bench"
        " (never edit it by hand)")
