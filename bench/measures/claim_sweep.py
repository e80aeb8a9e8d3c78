"""1. pgbench claim sweep (the method of design.md#the-claim-rate-article) with the durable-commit ceiling.

pgq's SQL functions and the article's raw claim run under pgbench on the same
backlog (1.2M waiting rows in the full profile), at each client count, one
after the other within each run. Before every pgbench run the table is put
back to the backlog (claimed rows deleted, topped up) and vacuumed.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .. import charts, databases, pgbench
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, rate, ratio

SCRIPTS = Path(__file__).resolve().parents[1] / "sql" / "pgbench"
PGQ_DB = "bench_sweep_pgq"
RAW_DB = "bench_sweep_raw"
CEIL_DB = "bench_sweep_ceiling"
BATCH = 50

# (pgq script, raw script, label, jobs per transaction)
PAIRS = [
    ("pgq_claim", "raw_claim", "claim alone", 1),
    ("pgq_cycle", "raw_cycle", "claim + complete", 1),
    ("pgq_batch", "raw_batch", "batch of 50, claim + complete", BATCH),
]


def _pgq_db(revision: str | None) -> str:
    """pgq at head, or pgq@<revision> (an older Alembic revision, same scripts) beside it."""
    return PGQ_DB if not revision else f"{PGQ_DB}_{revision}"


def _script(name: str) -> str:
    return (SCRIPTS / f"{name}.sql").read_text()


def setup(ctx: Context) -> None:
    p = ctx.profile
    srv = ctx.server
    for rev in (None, *ctx.revisions):
        db = _pgq_db(rev)
        databases.new_pgq(srv, db, rev)
        with srv.connect(db) as conn:
            databases.fill_pgq(conn, p.backlog)
            databases.execute(conn, "vacuum (analyze) q_data.job")
    databases.new_raw(srv, RAW_DB, "seed001.sql")
    with srv.connect(RAW_DB) as conn:
        databases.fill_seed001(conn, p.backlog)
        conn.execute("vacuum (analyze) jobs")
    srv.recreate(CEIL_DB)
    with srv.connect(CEIL_DB) as conn:
        conn.execute("create table ceiling (id int primary key, n bigint not null default 0)")
        conn.execute("insert into ceiling (id) select generate_series(0, 255)")


def run(ctx: Context, mode: str = "simple") -> Section:
    p = ctx.profile
    srv = ctx.server
    ctx.log(f"claim sweep: seeding {p.backlog:,} waiting jobs per table")
    setup(ctx)
    tps: dict[tuple[str, int], list[float]] = defaultdict(list)
    for rep in range(p.reps):
        for clients in p.sweep_clients:
            ctx.log(f"claim sweep: run {rep + 1}/{p.reps}, {clients} clients")
            r = pgbench.run(srv, CEIL_DB, _script("ceiling"), clients, p.sweep_seconds, mode=mode,
                             transactions=p.pgbench_transactions)
            tps[("ceiling", clients)].append(r.tps)
            for pgq_name, raw_name, _, _ in PAIRS:
                names = [pgq_name, raw_name] + [f"{pgq_name}@{rev}" for rev in ctx.revisions]
                for name in ctx.order(names, rep):
                    script, _, rev = name.partition("@")
                    db = _pgq_db(rev or None) if name.startswith("pgq") else RAW_DB
                    with srv.connect(db) as conn:
                        if db == RAW_DB:
                            databases.reset_seed001(conn, p.backlog)
                        else:
                            databases.reset_pgq(conn, p.backlog)
                    r = pgbench.run(srv, db, _script(script), clients, p.sweep_seconds, mode=mode,
                             transactions=p.pgbench_transactions)
                    tps[(name, clients)].append(r.tps)
    for db in (RAW_DB, CEIL_DB, *(_pgq_db(rev) for rev in (None, *ctx.revisions))):
        srv.drop(db)
    return report(ctx, tps, mode)


def revision_table(ctx: Context, med: dict[tuple[str, int], float]) -> list[Table]:
    """pgq at head against pgq@<revision>, per script and client count (issues 9 and 11: "within 3% of 0002")."""
    p = ctx.profile
    out = []
    for rev in ctx.revisions:
        rows = []
        for pgq_name, _, label, per in PAIRS:
            for c in p.sweep_clients:
                a, b = med[(pgq_name, c)] * per, med[(f"{pgq_name}@{rev}", c)] * per
                rows.append([label, str(c), rate(a), rate(b), f"{ratio(a, b):.2f}"])
        out.append(Table(caption=f"pgq head against pgq@{rev} (same scripts, same run; jobs/s or calls/s, "
                                 f"median of {p.reps})",
                         headers=["script", "clients", "head", f"@{rev}", f"head / @{rev}"], rows=rows))
    return out


def report(ctx: Context, tps: dict[tuple[str, int], list[float]], mode: str) -> Section:
    p = ctx.profile
    med = {k: median(v) for k, v in tps.items()}
    sec = Section(
        key="claim_sweep",
        title="1. pgbench claim sweep",
        method=(
            f"pgbench `-M {mode} -n -c C -j C -T {p.sweep_seconds}` over the Unix socket, C = "
            f"{', '.join(map(str, p.sweep_clients))}; median of {p.reps} runs; each table holds a backlog of "
            f"{p.backlog:,} waiting jobs, restored and vacuumed before every pgbench run. "
            "pgq: `select * from q.claim('bench', 1)` (default owner: the session's liveness key), "
            "claim + `q.complete(id, token)`, and `q.claim('bench', 50)` + `q.complete_many`. "
            "Raw: seed 001's table, partial index and claim `UPDATE jobs ... WHERE id = (SELECT id ... "
            "ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)`, then `DELETE ... WHERE id = :id` for a "
            "cycle, and the same with `LIMIT 50` / `= ANY(...)` for a batch. Both sides commit twice per "
            "cycle (claim, then complete/delete). Ceiling: each client updates its own row of a 256-row "
            "table in autocommit, so the rate is the machine's durable commits per second at that "
            "client count. Scripts: `bench/sql/pgbench/`."
        ),
        seed=(
            "Seed 001 (8-core M3, Docker, pgbench in the container, 1.2M rows, 15 s runs): raw claim "
            "6,877/s at 1 worker, 13,260 at 4, 15,852 at 8, 17,800 at 16 (16,038 peak in the article), "
            "13,184 at 32; 6,573/s at 100 workers."
        ),
        data={"mode": mode, "tps": {f"{k[0]}@{k[1]}": v for k, v in tps.items()}},
    )
    for pgq_name, raw_name, label, per in PAIRS:
        rows = []
        worst: tuple[float, int] | None = None
        for c in p.sweep_clients:
            a, b, ceil = med[(pgq_name, c)] * per, med[(raw_name, c)] * per, med[("ceiling", c)]
            r = ratio(a, b)
            worst = min(worst, (r, c)) if worst else (r, c)
            commits = 2 / per  # commits per job on both sides
            rows.append([
                str(c), rate(ceil), rate(a), rate(b), f"{r:.2f}",
                f"{a * commits / ceil:.0%}" if ceil else "n/a",
                f"{b * commits / ceil:.0%}" if ceil else "n/a",
            ])
        unit = "jobs/s" if per > 1 else ("claims/s" if pgq_name == "pgq_claim" else "cycles/s")
        commit_note = "commits" if pgq_name != "pgq_claim" else "commits"
        sec.tables.append(Table(
            caption=f"{label} ({unit}, median of {p.reps})",
            headers=["clients", "ceiling (commits/s)", "pgq", "raw", "pgq / raw",
                     f"pgq {commit_note} / ceiling", f"raw {commit_note} / ceiling"],
            rows=rows,
        ))
        if worst:
            r, c = worst
            sec.targets.append(Target(
                name=f"pgq {label} ≥ 0.9x raw at every client count",
                holds=r >= 0.9,
                detail=f"lowest ratio {r:.2f} at {c} clients",
            ))
    sec.tables += revision_table(ctx, med)
    # The claim-alone script commits once per claim; fix its ceiling column.
    claim_table = sec.tables[0]
    for row, c in zip(claim_table.rows, p.sweep_clients, strict=True):
        ceil = med[("ceiling", c)]
        row[5] = f"{med[('pgq_claim', c)] / ceil:.0%}" if ceil else "n/a"
        row[6] = f"{med[('raw_claim', c)] / ceil:.0%}" if ceil else "n/a"
    chart = ctx.charts / "claim_sweep.png"
    series = {"durable-commit ceiling (commits/s)": [(c, med[("ceiling", c)]) for c in p.sweep_clients]}
    for pgq_name, raw_name, label, per in PAIRS:
        if per == 1:
            series[f"pgq {label}"] = [(c, med[(pgq_name, c)]) for c in p.sweep_clients]
            series[f"raw {label}"] = [(c, med[(raw_name, c)]) for c in p.sweep_clients]
    charts.lines(chart, "Throughput vs clients (pgbench)", "clients", "per second", series, logx=True)
    sec.charts.append(chart.name)
    batch_chart = ctx.charts / "claim_sweep_batch.png"
    charts.lines(
        batch_chart, "Batch of 50: jobs/s vs clients (pgbench)", "clients", "jobs/s",
        {
            "pgq claim 50 + complete_many": [(c, med[("pgq_batch", c)] * BATCH) for c in p.sweep_clients],
            "raw claim 50 + delete": [(c, med[("raw_batch", c)] * BATCH) for c in p.sweep_clients],
        },
        logx=True,
    )
    sec.charts.append(batch_chart.name)
    return sec
