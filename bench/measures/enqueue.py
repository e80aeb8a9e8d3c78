"""4. Enqueue speed (design.md#the-node-benchmark): one at a time, 50 in flight, bulk calls of 500."""

from __future__ import annotations

from collections import defaultdict

from .. import verdicts
from ..contenders import registry
from ..contenders.peer_pgqueuer import Pgqueuer
from ..contenders.peer_procrastinate import Procrastinate
from ..contenders.pgq_thin import PgqThin
from ..contenders.seed004 import Seed004
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, rate, ratio

INFLIGHT = 50
PER_CALL = 500


def run(ctx: Context) -> Section:
    p = ctx.profile
    contenders = [PgqThin(ctx.server), Seed004(ctx.server), Procrastinate(ctx.server), Pgqueuer(ctx.server)]
    contenders += [PgqThin(ctx.server, f"bench_pgq_thin_{rev}", revision=rev) for rev in ctx.revisions]
    more, skipped = registry.others(ctx.server)
    contenders += more
    for c in contenders:
        c.setup()
    res: dict[tuple[str, str], list[float]] = defaultdict(list)
    kinds = [
        ("one", p.enqueue_one, lambda c: c.enqueue_one(p.enqueue_one)),
        ("inflight", p.enqueue_inflight, lambda c: c.enqueue_inflight(p.enqueue_inflight, INFLIGHT)),
        ("bulk", p.enqueue_bulk, lambda c: c.enqueue_bulk(p.enqueue_bulk, PER_CALL)),
    ]
    try:
        for rep in range(p.reps):
            for kind, n, fn in kinds:
                for c in ctx.order(contenders, rep):
                    c.load(0)
                    res[(c.name, kind)].append(n / fn(c))
                ctx.log(f"enqueue: run {rep + 1} {kind} done")
    finally:
        for c in contenders:
            c.close()
    med = {k: median(v) for k, v in res.items()}
    labels = {
        PgqThin.name: "pgq `enqueue` / `enqueue_many` (notify trigger on)",
        Seed004.name: "raw INSERT, seed 004's table and NOTIFY trigger",
        "procrastinate": "procrastinate `defer_async` / `batch_defer_async`",
        "pgqueuer": "pgqueuer `Queries.enqueue` (scalar / lists)",
        "pgmq (SQL-only install)": "pgmq `pgmq.send` / `pgmq.send_batch` (no insert notifications)",
        "pg-boss": "pg-boss `send()` / `insert()` (queue `notify: true`)",
        "BullMQ on Redis": "BullMQ on Redis `add()` / `addBulk()`",
        "BullMQ on PostgreSQL": "BullMQ on PostgreSQL `add()` / `addBulk()`",
    }
    labels.update({c.name: f"{c.name} `enqueue` / `enqueue_many`" for c in contenders if c.name not in labels})
    rows = [[labels[c.name]] + [rate(med[(c.name, k)]) for k, _, _ in kinds] for c in contenders]
    sec = Section(
        key="enqueue",
        title="4. Enqueue",
        method=(
            f"Into an empty queue: {p.enqueue_one:,} jobs one after another on one connection; "
            f"{p.enqueue_inflight:,} with {INFLIGHT} in flight"
            + (" (seed 004: 20,000; fewer here to keep the run short)" if p.enqueue_inflight != 20_000 else "")
            + f" ({INFLIGHT} threads with a connection each for "
            f"the sync contenders, {INFLIGHT} coroutines over a pool of {INFLIGHT} for the async peers); "
            f"{p.enqueue_bulk:,} in bulk calls of {PER_CALL}. Seed 004's ~70-byte payload; every enqueue is its "
            f"own committed transaction. Median of {p.reps} runs. " + registry.settings_notes(more)
        ),
        tables=[Table(caption=f"jobs/s, median of {p.reps}",
                      headers=["contender", "one at a time", f"{INFLIGHT} in flight", f"bulk, {PER_CALL} per call"],
                      rows=rows)],
        seed=(
            "Seed 004 (8 vCPU, Node, pg): raw INSERT 5,651 one at a time / 14,611 with 50 in flight / 178,287 "
            "bulk; pg-boss 1,301 / 10,463 / 49,164; BullMQ on Postgres 4,263 / 12,358 / 33,151."
        ),
        notes=skipped,
        data={"jobs_per_s": {f"{k[0]}|{k[1]}": v for k, v in res.items()}},
    )
    pgq, raw = PgqThin.name, Seed004.name
    peers = ["procrastinate", "pgqueuer"]
    for kind, title in (("one", "one at a time"), ("bulk", f"bulk of {PER_CALL}")):
        r = ratio(med[(pgq, kind)], med[(raw, kind)])
        sec.targets.append(Target(
            name=f"enqueue {title}: pgq ≥ 0.9x raw INSERT (trigger on)",
            holds=r >= 0.9, detail=f"{r:.2f} ({rate(med[(pgq, kind)])} vs {rate(med[(raw, kind)])} jobs/s)",
        ))
        best = max(peers, key=lambda n: med[(n, kind)])
        sec.targets.append(Target(
            name=f"enqueue {title}: pgq faster than every peer",
            holds=med[(pgq, kind)] > med[(best, kind)],
            detail=f"pgq {rate(med[(pgq, kind)])} vs fastest peer {best} {rate(med[(best, kind)])} jobs/s",
        ))
    names = {c.name for c in contenders}
    for other in ("pgmq (SQL-only install)", "pg-boss", "BullMQ on PostgreSQL"):
        if other in names:
            for kind, title in (("one", "one at a time"), ("inflight", f"{INFLIGHT} in flight"),
                                ("bulk", f"bulk of {PER_CALL}")):
                sec.targets.append(verdicts.ahead(f"enqueue {title}: pgq ahead of {other}",
                                                  ("pgq", med.get((pgq, kind))), (other, med.get((other, kind)))))
    for rev in ctx.revisions:
        # Revision comparisons (issues 9 and 11): head against an older schema, same client, same run.
        old = f"{PgqThin.name} @{rev}"
        for kind, title in (("one", "one at a time"), ("bulk", f"bulk of {PER_CALL}")):
            r = ratio(med[(pgq, kind)], med[(old, kind)])
            sec.notes.append(f"enqueue {title}: pgq head / pgq@{rev} = {r:.2f} "
                             f"({rate(med[(pgq, kind)])} vs {rate(med[(old, kind)])} jobs/s).")
    return sec
