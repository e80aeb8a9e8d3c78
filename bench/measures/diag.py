"""11. Where the time goes: the CPU cost of each piece, without the commit flush.

pgbench, 1 client, `synchronous_commit = off` (so the WAL flush, the same for
every contender, drops out and what is left is the server's work per call),
median of the profile's runs. Each pgq call is compared with the same
statement written inline and with the hand-written equivalent, so a gap can
be pinned on the function wrapper, the notify trigger or the statement.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .. import databases, pgbench
from ..context import Context
from ..model import Section, Table
from ..stats import median, rate

SCRIPTS = Path(__file__).resolve().parents[1] / "sql" / "pgbench"
PGQ, RAW4, RAW1 = "bench_diag_pgq", "bench_diag_raw4", "bench_diag_raw1"
ASYNC = "-c synchronous_commit=off"
QUIET = ASYNC + " -c pgq.notify=off"

CASES = [
    # (label, database, script, PGOPTIONS, vacuum first)
    ("raw INSERT, seed 004's table + NOTIFY trigger", RAW4, "diag_raw_insert", ASYNC, None),
    ("INSERT into q_data.job, pgq's notify trigger on", PGQ, "diag_pgq_insert", ASYNC, None),
    ("INSERT into q_data.job, pgq.notify = off", PGQ, "diag_pgq_insert", QUIET, None),
    ("q.enqueue(queue, payload)", PGQ, "diag_pgq_enqueue", ASYNC, None),
    ("q.enqueue, pgq.notify = off", PGQ, "diag_pgq_enqueue", QUIET, None),
    ("raw claim (seed 001)", RAW1, "raw_claim", ASYNC, "jobs"),
    ("q.claim's UPDATE written inline", PGQ, "diag_pgq_claim_inline", ASYNC, "q_data.job"),
    ("q.claim('bench', 1)", PGQ, "pgq_claim", ASYNC, "q_data.job"),
]


def run(ctx: Context) -> Section:
    p = ctx.profile
    srv = ctx.server
    backlog = p.history_waiting  # 200,000 in the full profile
    databases.new_pgq(srv, PGQ)
    with srv.connect(PGQ) as conn:
        databases.fill_pgq(conn, backlog)
        databases.execute(conn, "vacuum (analyze) q_data.job")
    databases.new_raw(srv, RAW4, "seed004.sql")
    databases.new_raw(srv, RAW1, "seed001.sql")
    with srv.connect(RAW1) as conn:
        databases.fill_seed001(conn, backlog)
        conn.execute("vacuum (analyze) jobs")
    tps: dict[str, list[float]] = defaultdict(list)
    for rep in range(p.reps):
        for label, db, script, options, vacuum in ctx.order(CASES, rep):
            if vacuum:
                with srv.connect(db) as conn:
                    databases.execute(conn, f"vacuum {vacuum}")
            r = pgbench.run(srv, db, (SCRIPTS / f"{script}.sql").read_text(), 1, 1, options=options,
                            transactions=p.pgbench_transactions)
            tps[label].append(r.tps)
        ctx.log(f"diag: run {rep + 1} done")
    for db in (PGQ, RAW4, RAW1):
        srv.drop(db)
    med = {k: median(v) for k, v in tps.items()}
    rows = [[label, rate(med[label]), f"{1e6 / med[label]:.0f} µs"] for label, *_ in CASES]
    return Section(
        key="diag",
        title="11. Where the time goes (diagnostics)",
        method=(
            "pgbench `-M simple -c 1 -T 1` with `PGOPTIONS='-c synchronous_commit=off'`: no commit waits for its "
            "WAL flush, so the figure is the server's own work per call (plus one round trip over the Unix "
            f"socket). Median of {p.reps} runs. Claims run on {backlog:,}-job backlogs, vacuumed before each run. "
            "Scripts: `bench/sql/pgbench/diag_*.sql`."
        ),
        tables=[Table(caption="one client, no flush wait", headers=["statement", "calls/s", "per call"], rows=rows)],
        data={"tps": tps},
    )
