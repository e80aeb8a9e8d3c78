"""`python -m bench [--quick] [--only NAME ...] [--database-url URL] [--pgq-revision REV] [--minutes M]`.

Full profile: writes BENCHMARKS.md at the repository root and charts under
bench/charts/. Quick profile: writes bench/results/quick/BENCHMARKS.md and its
charts there (git-ignored), so a smoke run never overwrites the real report.

MEASURES run by default (`make bench`). STANDALONE ones run only when named
(`make bench-scale`, `make bench-sustained`, `make bench-profile`): their
sections replace their own block of the report and leave the rest of it as it
is, and a later `make bench` keeps those blocks.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import time
import traceback
from pathlib import Path

from . import databases, explain, machine, report
from .cluster import BENCH_ROOT, ROOT, server
from .context import Context
from .model import Section
from .profile import PROFILES

MEASURES = [
    "claim_sweep",
    "sustained",
    "drain",
    "enqueue",
    "producers",
    "pickup",
    "killed",
    "storage",
    "history",
    "seed000",
    "realwork",
    "diag",
    "observe",
    "schedules",
    "workflows",
    "cancel",
]
# Long or special runs, each behind its own make target; never part of `make bench`.
STANDALONE = [
    "scale",
    "sustained_long",
    "claim_profile",
    "flow",  # `make bench` runs it after the others, as its own block (`make bench-flow` alone)
]


def main() -> int:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("--quick", action="store_true", help="short runs, small N, one run per figure")
    ap.add_argument("--only", nargs="*", choices=MEASURES + STANDALONE, help="run only these measurements")
    ap.add_argument("--database-url", default=os.environ.get("PGQ_BENCH_DATABASE_URL", ""),
                    help="use this server instead of starting the harness's own cluster")
    ap.add_argument("--out", type=Path, help="report path (default depends on the profile)")
    ap.add_argument("--rewrite", action="store_true",
                    help="measure nothing: rewrite the report from the run's saved raw results")
    ap.add_argument("--pgq-revision", action="append", default=[],
                    help="also measure pgq migrated to this Alembic revision (e.g. 0002) beside head, in the claim "
                         "sweep and enqueue (repeatable; PGQ_BENCH_REVISIONS='0002 0003' too)")
    ap.add_argument("--minutes", type=float, help="sustained_long: minutes per server configuration")
    ap.add_argument("--scale-max", type=int,
                    help="scale: largest backlog / history size (e.g. 1000000 for a shorter run)")
    ap.add_argument("--diagnose", action="store_true",
                    help="sustained_long: count index entries page by page (pageinspect) every interval")
    args = ap.parse_args()

    profile = PROFILES["quick" if args.quick else "full"]
    if args.minutes:
        profile = dataclasses.replace(profile, sustained_long_minutes=args.minutes)
    if args.scale_max:
        profile = dataclasses.replace(
            profile, scale_sizes=tuple(n for n in profile.scale_sizes if n <= args.scale_max),
            scale_history=tuple(n for n in profile.scale_history if n <= args.scale_max))
    if args.diagnose:
        os.environ["PGQ_BENCH_DIAGNOSE"] = "1"
    revisions = tuple(args.pgq_revision or os.environ.get("PGQ_BENCH_REVISIONS", "").split())
    # The quick profile (a smoke run) runs the standalone measurements too, in the same run.
    names = args.only or (MEASURES + STANDALONE if args.quick else MEASURES)
    standalone = all(n in STANDALONE for n in names)
    if args.out or os.environ.get("PGQ_BENCH_OUT"):
        out = args.out or Path(os.environ["PGQ_BENCH_OUT"])
    elif args.quick:
        out = ROOT / "bench" / "results" / "quick" / "BENCHMARKS.md"
    elif args.only and set(names) & set(MEASURES) and not set(MEASURES) <= set(names):
        # Some of the regular measurements only: a report of its own. (It used to replace
        # BENCHMARKS.md, whose other sections were then lost: stop 28's `--only workflows`.)
        out = ROOT / "bench" / "results" / "partial" / "BENCHMARKS.md"
    else:
        out = ROOT / "BENCHMARKS.md"
    charts_dir = ROOT / "bench" / "charts" if out == ROOT / "BENCHMARKS.md" else out.parent / "charts"
    out.parent.mkdir(parents=True, exist_ok=True)
    charts_dir.mkdir(parents=True, exist_ok=True)
    # The raw results of a run that writes BENCHMARKS.md are kept in the repository (bench/runs/, one file per
    # run kind): tests/unit/test_reports_are_generated.py renders them again and compares with BENCHMARKS.md.
    raw = ROOT / "bench" / "runs" / "full.json" if out == ROOT / "BENCHMARKS.md" else out.with_suffix(".json")
    rel = os.path.relpath(charts_dir, out.parent)
    if args.rewrite:
        sections, env = report.read_json(raw)
        total = float(env["run time"].split()[0])
        report.write(out, sections, env, rel, profile.name, total, closing=explain.closing(sections))
        print(f"bench: rewrote {out} from {raw}")
        return 0

    started = time.monotonic()
    load_before = machine.loadavg()
    sampler = machine.LoadSampler().start()
    sections: list[Section] = []
    failures: list[str] = []
    with server(args.database_url or None) as srv:
        ctx = Context(server=srv, profile=profile, out=out.parent, charts=charts_dir, revisions=revisions)
        ctx.log(f"profile {profile.name}, server {'own cluster' if srv.own else 'DATABASE_URL'}, load {load_before}")
        env = machine.describe(srv, BENCH_ROOT if srv.own else ROOT / "bench" / "results")
        databases.install_pgq_template(srv)
        for rev in revisions:
            databases.install_pgq_template(srv, rev)
        for name in names:
            t0 = time.monotonic()
            try:
                module = importlib.import_module(f"bench.measures.{name}")
                section = module.run(ctx)
            except Exception as exc:  # report what failed and go on with the rest
                traceback.print_exc()
                failures.append(f"{name}: {exc!r}")
                section = Section(key=name, title=name, method=f"**This measurement failed:** `{exc!r}`")
            section.seconds = time.monotonic() - t0
            ctx.log(f"{name}: {section.seconds:.0f} s")
            sections.append(section)
        databases.drop_templates(srv, revisions)
    total = time.monotonic() - started
    env["load average (1/5/15 min) before / after"] = f"{load_before} / {machine.loadavg()}"
    env["1-min load average during the run (every 5 s)"] = sampler.stop()
    env["run time"] = f"{total:.0f} s"
    regular = [s for s in sections if s.key not in STANDALONE]
    if standalone:
        raw = raw.with_name(raw.stem + "-" + "-".join(names) + ".json")
    else:
        report.write(out, regular, env, rel, profile.name, total, closing=explain.closing(regular))
    report.write_blocks(out, [s for s in sections if s.key in STANDALONE], env, rel, profile.name)
    raw.parent.mkdir(parents=True, exist_ok=True)
    report.write_json(raw, sections, env)
    print(f"bench: wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} in {total:.0f} s")
    if failures:
        print("bench: failed measurements: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
