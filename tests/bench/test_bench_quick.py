"""`make bench-quick` and the standalone measurements run end to end (speed itself is never asserted here).

One run of `make bench-quick`: every default measurement, with the Node
benchmark's contenders (design.md#the-node-benchmark) and pgmq (the bench's own
redis-server started and stopped), and the standalone ones (a tiny scale point,
a tiny sustained run with the pageinspect diagnosis, the claim profile) as
blocks of the same report, on a cluster of the test's own.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

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
    "## 12. Observability: stats at scale, the tally's cost",
    "## 13. Schedules",
]
STANDALONE = {
    "scale": "## Scale curve",
    "sustained_long": "## Hours, not a minute",
    "claim_profile": "## The claim path, profiled",
    "flow": "## Flow control (issue 11)",
}
OTHERS = ["pgmq (SQL-only install)", "pg-boss", "BullMQ on Redis", "BullMQ on PostgreSQL"]


# 3.5 minutes: the bench harness end to end (tooling, no promise of pgq's), so make soak runs it, not make test.
@pytest.mark.soak
def test_make_bench_quick_writes_a_report_with_every_measurement_and_stops_its_cluster(tmp_path: Path) -> None:
    pg_root = ROOT / ".pg-bench-test"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        PGQ_BENCH_PG_ROOT=str(pg_root),  # its own cluster: never meets a running `make bench`
        PGQ_BENCH_PG_PORT="54361",
        PGQ_BENCH_OUT=str(tmp_path / "BENCHMARKS.md"),
        PGQ_BENCH_DIAGNOSE="1",
    )
    run = subprocess.run(["make", "bench-quick"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]

    report = (tmp_path / "BENCHMARKS.md").read_text()
    for heading in SECTIONS:
        assert heading in report, f"missing {heading!r}"
    assert "This measurement failed" not in report
    # The Node benchmark's contenders and pgmq ran, or the report says why not (never an error).
    drain = report.split("## 3. Drain")[1].split("\n## ")[0]
    for name in OTHERS:
        assert f"| {name}, " in drain or f"Skipped: {name}" in drain or "Skipped: pg-boss, BullMQ" in drain, name
    for key, heading in STANDALONE.items():
        block = report.split(f"<!-- bench:{key} -->")[1].split(f"<!-- /bench:{key} -->")[0]
        assert heading in block, key
        if key != "claim_profile":  # the profile explains; it has no targets
            assert "| target | verdict | figure |" in block, key
    for chart in ("scale_backlog.png", "sustained_long_latency.png", "sustained_long_tables.png"):
        assert (tmp_path / "charts" / chart).stat().st_size > 1000, chart
    assert "| PostgreSQL | PostgreSQL " in report
    assert "## Targets" in report and "| target | verdict | figure |" in report
    for chart in ("claim_sweep.png", "sustained.png", "seed000_sweep.png"):
        assert (tmp_path / "charts" / chart).stat().st_size > 1000, chart
    # Ask the script where the cluster lives (it may relocate it under /var/tmp).
    status = subprocess.run([str(ROOT / "scripts" / "embedded-pg"), "status"], capture_output=True, text=True,
                            env={**env, "PGQ_PG_ROOT": str(pg_root), "PGQ_PG_PORT": "54361"})
    assert status.stdout.strip() == "stopped", "the bench cluster was left running"
