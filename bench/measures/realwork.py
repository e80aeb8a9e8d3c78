"""10. Real work (design.md#the-node-benchmark): 20,000 jobs of 10 ms each, 50 in flight, as a share of 5,000 jobs/s."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..contenders import node
from ..contenders.peer_pgqueuer import Pgqueuer
from ..contenders.peer_procrastinate import Procrastinate
from ..contenders.pgq_thin import PgqThin
from ..contenders.pgq_worker import DEFAULT, PgqWorker
from ..contenders.seed004 import Seed004
from ..context import Context
from ..model import Section, Table
from ..stats import median, rate

INFLIGHT = 50
JOB_S = 0.010
CEILING = INFLIGHT / JOB_S


def run(ctx: Context) -> Section:
    p = ctx.profile
    pgqueuer = Pgqueuer(ctx.server)
    pgqueuer.max_tasks = INFLIGHT
    # (contender, batch, label)
    plan: list[tuple[Any, int, str]] = [
        (PgqWorker(ctx.server), DEFAULT, "pgq Worker(concurrency=50), defaults"),
        (PgqThin(ctx.server), 1, "pgq_client functions, 50 threads, 1 job per claim"),
        (Seed004(ctx.server), 1, "seed 004 hand-written, 50 loops, 1 job per fetch"),
        (Procrastinate(ctx.server), 1, "procrastinate, concurrency=50"),
        (pgqueuer, 20, "pgqueuer, max_concurrent_tasks=50, batch_size 20"),
    ]
    others, skipped = node.available(ctx.server)
    for c in others:
        plan.append((c, 50 if c.kind == "pgboss" else 1,
                     f"{c.name}, {'batchSize 50, the batch run at once' if c.kind == 'pgboss' else 'concurrency 50'}"))
    for c, _, _ in plan:
        c.setup()
    rates: dict[str, list[float]] = defaultdict(list)
    cap = p.realwork_cap_s
    try:
        for rep in range(p.reps):
            for c, batch, label in ctx.order(plan, rep):
                c.load(p.realwork_jobs)
                r = c.work(INFLIGHT, batch, p.realwork_jobs, cap, sleep_s=JOB_S)
                rates[label].append(r.done / r.seconds)
                ctx.log(f"realwork: run {rep + 1} {label}: {rates[label][-1]:.0f} jobs/s")
    finally:
        for c, _, _ in plan:
            c.close()
    rows = [[label, rate(median(rates[label])), f"{median(rates[label]) / CEILING:.0%}"] for _, _, label in plan]
    return Section(
        key="realwork",
        title="10. Real work: 10 ms jobs, 50 in flight",
        method=(
            f"{p.realwork_jobs:,} jobs whose handler sleeps {JOB_S * 1000:.0f} ms, {INFLIGHT} in flight, so the "
            f"ceiling is {CEILING:,.0f} jobs/s. Timed from start to an empty queue, capped at {cap:g} s (a capped run "
            f"reports jobs done / cap); median of {p.reps} runs."
        ),
        tables=[Table(caption=f"jobs/s, median of {p.reps}", headers=["contender", "jobs/s", "share of 5,000/s"],
                      rows=rows)],
        seed=(
            "Seed 004: SKIP LOCKED 1 job per fetch 4,189 (84%); pg-boss batchSize 50 4,587 (92%); BullMQ on Redis "
            "4,469 (89%); BullMQ on Postgres 4,037 (81%)."
        ),
        notes=skipped,
        data={"jobs_per_s": rates},
    )
