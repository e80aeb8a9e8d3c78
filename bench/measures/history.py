"""8. History does not slow claims (design.md#finished-jobs-leave-the-hot-table): 1.8M finished jobs
retained vs a clean table.

Two pgq databases with the same 200,000 waiting jobs; one also retains 1.8
million completed jobs (the queue has keep_completed on, so they sit in
q_data.job_history). pgbench claims at 4 clients (the seed's setting), alternating.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .. import databases, pgbench
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, rate, ratio

SCRIPT = (Path(__file__).resolve().parents[1] / "sql" / "pgbench" / "pgq_claim.sql").read_text()
CLIENTS = 4
CLEAN, KEPT = "bench_hist_clean", "bench_hist_kept"


def run(ctx: Context) -> Section:
    p = ctx.profile
    srv = ctx.server
    ctx.log(f"history: seeding {p.history_rows:,} finished jobs")
    for db in (CLEAN, KEPT):
        databases.new_pgq(srv, db)
        with srv.connect(db) as conn:
            conn.execute("select q.configure(%s, keep_completed => true)", (databases.QUEUE,))
            databases.fill_pgq(conn, p.history_waiting)
            if db == KEPT:
                databases.execute(
                    conn,
                    "insert into q_data.job_history"
                    " (id, queue_id, state, payload, priority, attempt, run_at, finished_at)"
                    " select -g, %s, 'completed', jsonb_build_object('n', g), 0, 1,"
                    " now() - interval '1 day', now() - interval '1 hour' + g * interval '1 millisecond'"
                    " from generate_series(1, %s) g",
                    (databases.queue_id(conn), p.history_rows),
                )
                databases.execute(conn, "vacuum (analyze) q_data.job_history")
    tps: dict[str, list[float]] = defaultdict(list)
    for rep in range(p.reps):
        for db in ctx.order([CLEAN, KEPT], rep):
            with srv.connect(db) as conn:
                databases.reset_pgq(conn, p.history_waiting)
            tps[db].append(pgbench.run(srv, db, SCRIPT, CLIENTS, p.history_seconds,
                                         transactions=p.pgbench_transactions).tps)
        ctx.log(f"history: run {rep + 1}: clean {tps[CLEAN][-1]:.0f}, kept {tps[KEPT][-1]:.0f}")
    with srv.connect(KEPT) as conn:
        kept = databases.execute(conn, "select count(*) from q_data.job_history").fetchone()[0]
    for db in (CLEAN, KEPT):
        srv.drop(db)
    clean, with_history = median(tps[CLEAN]), median(tps[KEPT])
    r = ratio(with_history, clean)
    return Section(
        key="history",
        title="8. History does not slow claims",
        method=(
            f"pgbench `-M simple -c {CLIENTS} -j {CLIENTS} -T {p.history_seconds}`, `q.claim('bench', 1)`, "
            f"{p.history_waiting:,} waiting jobs restored and vacuumed before each run; one database also retains "
            f"{kept:,} completed jobs (queue `keep_completed => true`). Median of {p.reps} runs, alternating."
        ),
        tables=[Table(caption=f"claims/s, {CLIENTS} clients, median of {p.reps}",
                      headers=["table", "claims/s"],
                      rows=[["clean (no finished jobs)", rate(clean)],
                            [f"{kept:,} finished jobs retained", rate(with_history)],
                            ["ratio", f"{r:.2f}"]])],
        targets=[Target(name="claims with 1.8M finished jobs retained ≥ 0.9x a clean table", holds=r >= 0.9,
                        detail=f"{r:.2f} ({rate(with_history)} vs {rate(clean)} claims/s, {kept:,} retained)")],
        seed=(
            "Seed 001 (2M rows, 1.8M done, 200k queued, 4 workers): partial index on status 13,499 claims/s; a "
            "plain index on created_at 28.5/s (\"Rows Removed by Filter: 1800000\")."
        ),
        data={"tps": tps},
    )
