"""3. Drain 50,000 no-op jobs with 1 and 10 workers, batch 1 and 50 (design.md#the-node-benchmark's table).

Each run loads the backlog (not timed), starts the workers and times until the
queue is empty. Runs are capped; a capped run reports jobs done / cap, as in
that article. Contenders alternate within each run.
"""

from __future__ import annotations

from collections import defaultdict

from .. import verdicts
from ..contenders import registry
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, rate, ratio

BATCHES = (1, 50)


def run(ctx: Context) -> Section:
    p = ctx.profile
    contenders = registry.drainers(ctx.server)
    more, skipped = registry.others(ctx.server)
    contenders += more
    for c in contenders:
        c.setup()
    rates: dict[tuple[str, int, int], list[float]] = defaultdict(list)
    capped: set[tuple[str, int, int]] = set()
    try:
        for rep in range(p.reps):
            for workers in p.drain_workers:
                for batch in sorted({b for c in contenders for b in c.batches}):
                    for c in ctx.order(contenders, rep):
                        if batch not in c.batches:
                            continue
                        c.load(p.drain_jobs)
                        r = c.work(workers, batch, p.drain_jobs, p.drain_cap_s)
                        key = (c.name, workers, batch)
                        rates[key].append(r.done / r.seconds)
                        if r.capped:
                            capped.add(key)
                        ctx.log(f"drain: run {rep + 1} {c.name} w={workers} b={batch}: "
                                f"{r.done} in {r.seconds:.2f}s{' (capped)' if r.capped else ''}")
    finally:
        for c in contenders:
            c.close()
    med = {k: median(v) for k, v in rates.items()}

    def cell(name: str, w: int, b: int) -> str:
        k = (name, w, b)
        if k not in med:
            return "n/a"
        return rate(med[k]) + (" (capped)" if k in capped else "")

    rows = []
    for c in contenders:
        for b in c.batches:
            label = c.batch_label(b) if hasattr(c, "batch_label") else f"batch {b}"
            rows.append([f"{c.name}, {label}", cell(c.name, 1, b), cell(c.name, 10, b)])
    sec = Section(
        key="drain",
        title="3. Drain no-op jobs",
        method=(
            f"{p.drain_jobs:,} jobs with seed 004's ~70-byte payload are loaded (not timed); the workers start "
            f"together and the clock stops when the queue is empty. Runs are capped at {p.drain_cap_s:g} s; "
            f"a capped run reports jobs done / cap. Median of {p.reps} runs. \"Workers\" = jobs in flight at "
            "once. Sync contenders: one thread and one connection per worker (the seed's polling loops); "
            "peers: their own worker with the concurrency set to the worker count. "
            + registry.SETTINGS_NOTE + " " + registry.settings_notes(more)
        ),
        tables=[Table(caption=f"jobs/s, median of {p.reps}", headers=["contender", "1 worker", "10 workers"],
                      rows=rows)],
        seed=(
            "Seed 004 (8 vCPU Xeon VM, Node): hand-written SKIP LOCKED 1 job per fetch 2,791 (1 worker) / "
            "12,588 (10 workers); 50 per fetch 63,972 / 148,341; pg-boss batchSize 50 5,763 / 29,323; "
            "BullMQ on Redis 10,556 / 27,461. Issue 4, on our 2-core machines: pgqueuer's best ~8,100 jobs/s "
            "(asyncpg, batch 50), procrastinate's ~700 jobs/s."
        ),
        notes=skipped,
        data={"rates": {f"{k[0]}|{k[1]}|{k[2]}": v for k, v in rates.items()}, "capped": sorted(map(str, capped))},
    )
    sec.targets += _versus_others(med, more, p.drain_workers)
    thin, base = registry.PGQ_THIN, registry.SEED004
    for b in BATCHES:
        a, r = med.get((thin, 10, b), float("nan")), med.get((base, 10, b), float("nan"))
        sec.targets.append(Target(
            name=f"Python drain, 10 workers, batch {b}: pgq ≥ 0.9x the hand-written baseline",
            holds=ratio(a, r) >= 0.9,
            detail=f"{ratio(a, r):.2f} ({rate(a)} vs {rate(r)} jobs/s)",
        ))
    worker = med.get((registry.PGQ_WORKER, 10, registry.WORKER_DEFAULT_BATCH))
    peers = {k: v for k, v in med.items() if k[0] in registry.PEERS}
    if peers:
        best_key = max(peers, key=lambda k: peers[k])
        best = peers[best_key]
        best_label = f"{best_key[0]} w={best_key[1]} batch {best_key[2]}: {rate(best)} jobs/s"
        if worker is None:
            sec.targets.append(Target(
                name="pgq Worker (defaults), 10 workers ≥ 3x the best Python peer",
                holds=None, detail=f"pgq_client.Worker not available in this run; best peer {best_label}",
            ))
        else:
            sec.targets.append(Target(
                name="pgq Worker (defaults), 10 workers ≥ 3x the best Python peer",
                holds=ratio(worker, best) >= 3,
                detail=f"{ratio(worker, best):.1f}x ({rate(worker)} vs best peer {best_label})",
            ))
    return sec


def _versus_others(med: dict[tuple[str, int, int], float], others: list, workers: tuple[int, ...]) -> list[Target]:
    """pgq ahead of pgmq (thin loop and Worker), pg-boss and BullMQ on PostgreSQL on every drain row
    (design.md#what-the-benchmarks-hold-pgq-to)."""
    thin, worker = registry.PGQ_THIN, registry.PGQ_WORKER
    wd = registry.WORKER_DEFAULT_BATCH
    out: list[Target] = []
    names = {c.name for c in others}
    w = max(workers)
    if "pgmq (SQL-only install)" in names:
        pgmq = "pgmq (SQL-only install)"
        for b in BATCHES:
            out.append(verdicts.ahead(
                f"drain, {w} workers, batch {b}: pgq's thin-client loop ahead of pgmq",
                (f"pgq batch {b}", med.get((thin, w, b))), (f"pgmq qty {b}", med.get((pgmq, w, b)))))
        out.append(verdicts.ahead(
            f"drain, {w} workers: pgq Worker (defaults) ahead of pgmq batch 50",
            ("pgq Worker", med.get((worker, w, wd))), ("pgmq qty 50", med.get((pgmq, w, 50)))))
    for other, batch in (("pg-boss", 50), ("BullMQ on PostgreSQL", 1)):
        if other in names:
            for n in workers:
                out.append(verdicts.ahead(
                    f"drain, {n} worker{'s' if n > 1 else ''}: pgq Worker (defaults) ahead of {other}",
                    ("pgq Worker", med.get((worker, n, wd))), (other, med.get((other, n, batch)))))
    return out
