"""`make soak`: the long reliability suites, then RELIABILITY.md.

    python -m reliability.soak.run [--only chaos,crash,...] [--skip-fast] [--no-report]

(from tests/). Starts the soak cluster (.pg-soak, port 54361), runs the fast
suites of tests/reliability against it with figures recorded, then each long
suite, each bounded and self-stopping; writes RELIABILITY.md from the figures
and stops the cluster. Exits non-zero if any suite failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..figures import ENV, load, record
from . import chaos, failover, history, migrations, pg_crash, report, schedules
from .cluster import ROOT, Cluster

SUITES: dict[str, tuple[str, Callable[[Cluster, Path], dict[str, Any]]]] = {
    "chaos": ("2", chaos.run),
    "crash": ("3", pg_crash.run),
    "migrations": ("10", migrations.run),
    "history": ("9", history.run),
    "schedules": ("12", schedules.run),
    "failover": ("13", failover.run),
}
FAST_LONG_VARIANTS = {"PGQ_HOSTILE_EXAMPLES": "10000", "PGQ_CONTENTION_JOBS": "50000", "PGQ_FLOW_CHAOS_SECONDS": "60",
                      "PGQ_CHAOS_FULL": "1"}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(SUITES))
    parser.add_argument("--skip-fast", action="store_true")
    parser.add_argument("--no-report", action="store_true")
    args = parser.parse_args()

    cluster = Cluster()
    cluster.start()
    work = Path(tempfile.mkdtemp(prefix="pgq-soak-"))
    figures_file = work / "figures.jsonl"
    os.environ[ENV] = str(figures_file)
    failed: list[str] = []
    started = time.monotonic()
    try:
        if not args.skip_fast:
            failed += fast_suites(cluster, figures_file)
        for name in [n for n in args.only.split(",") if n]:
            suite, run = SUITES[name]
            print(f"== soak: suite {suite} ({name})", flush=True)
            t0 = time.monotonic()
            try:
                figures = run(cluster, work / "logs")
            except Exception as exc:  # noqa: BLE001 - a crashed suite is a failed suite, the others still run
                traceback.print_exc()
                figures = {"failures": f"{type(exc).__name__}: {exc}"[:300]}
            figures["seconds"] = round(time.monotonic() - t0, 1)
            record(suite, name, **figures)
            if figures.get("failures", "none") != "none":
                failed.append(f"suite {suite} ({name}): {figures['failures']}")
            cluster.drop_databases()
    finally:
        total = time.monotonic() - started
        if not args.no_report:
            report.write(ROOT / "RELIABILITY.md", load(figures_file), total, failed)
        cluster.drop_databases()
        cluster.stop()
    for line in failed:
        print(f"FAILED {line}")
    if failed:
        print(f"soak finished in {total / 60:.1f} min; worker logs kept in {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print(f"soak finished in {total / 60:.1f} min; every suite passed")
    return 0


def fast_suites(cluster: Cluster, figures_file: Path) -> list[str]:
    """pytest tests/reliability against the soak cluster, the long variants included."""
    env = {**os.environ, "DATABASE_URL": cluster.url("postgres"), ENV: str(figures_file), **FAST_LONG_VARIANTS}
    print("== soak: fast suites (tests/reliability, long variants)", flush=True)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/reliability"],
                          cwd=ROOT, env=env)
    failed = [] if done.returncode == 0 else ["fast suites (pytest tests/reliability)"]
    # The soak-like tests elsewhere (marked soak: make test leaves them out), e.g. make bench-quick end to end.
    print("== soak: tests marked soak outside tests/reliability", flush=True)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "soak",
                           "--ignore=tests/reliability", "tests"], cwd=ROOT, env=env)
    return failed + ([] if done.returncode == 0 else ["tests marked soak (pytest -m soak)"])


if __name__ == "__main__":
    sys.exit(main())
