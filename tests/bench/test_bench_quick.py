"""`make bench-quick` runs end to end and writes its report (speed itself is never asserted here)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = [
    "## 1. pgbench claim sweep",
    "## 2. The sustained minute",
    "## 3. Drain no-op jobs",
    "## 4. Enqueue",
    "## 5. Idle pickup latency",
    "## 6. Killed worker",
    "## 7. Bytes per waiting job",
    "## 8. History does not slow claims",
    "## 9. Seed 000's sweep",
    "## 10. Real work",
]


def test_make_bench_quick_writes_a_report_with_every_measurement_and_stops_its_cluster(tmp_path: Path) -> None:
    pg_root = ROOT / ".pg-bench-test"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        PGQ_BENCH_PG_ROOT=str(pg_root),  # its own cluster: never meets a running `make bench`
        PGQ_BENCH_PG_PORT="54361",
        PGQ_BENCH_OUT=str(tmp_path / "BENCHMARKS.md"),
    )
    run = subprocess.run(["make", "bench-quick"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]

    report = (tmp_path / "BENCHMARKS.md").read_text()
    for heading in SECTIONS:
        assert heading in report, f"missing {heading!r}"
    assert "This measurement failed" not in report
    assert "| PostgreSQL | PostgreSQL " in report
    assert "## Targets" in report and "| target | verdict | figure |" in report
    for chart in ("claim_sweep.png", "sustained.png", "seed000_sweep.png"):
        assert (tmp_path / "charts" / chart).stat().st_size > 1000, chart
    # Ask the script where the cluster lives (it may relocate it under /var/tmp).
    status = subprocess.run([str(ROOT / "scripts" / "embedded-pg"), "status"], capture_output=True, text=True,
                            env={**env, "PGQ_PG_ROOT": str(pg_root), "PGQ_PG_PORT": "54361"})
    assert status.stdout.strip() == "stopped", "the bench cluster was left running"
