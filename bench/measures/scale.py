"""The scale curve (`make bench-scale`): how pgq's cost grows with its work.

Four curves, each on a database of its own that is dropped when its curve is
done (so at most one large database exists at a time):

1. Backlog: 10k, 100k, 1M, 10M waiting jobs, loaded by INSERT ... SELECT
   generate_series in 1M-row transactions with pgq.notify off (load and vacuum
   timed); at each size pgbench runs `q.claim('bench', 1)` and claim +
   `q.complete` at 8 clients (the backlog restored and vacuumed before each),
   and `q.stats()` is timed (median of 3 calls).
2. Queues: enqueue throughput at 8 clients into 1, 100 and 10,000 queues
   (each call picks a queue at random).
   Every pgbench point is the median of the profile's runs of the same number
   of transactions per client.
3. Reaper: `q.reap()` time with 0, 10k and 100k running jobs (claims of 100
   live sessions, leases not expired: the reaper has to look and find nothing
   to do), then with 10,000 idle queues on top.
4. History: claims at 8 clients with 0, 1M and 10M finished jobs kept in
   q_data.job_history, beside a fixed backlog.

The largest size needs about 6 GB of disk: the harness checks free space first
and skips a size it has no room for, saying so.
"""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

from .. import charts, databases, pgbench
from ..context import Context
from ..model import Section, Table, Target
from ..stats import rate, ratio

SCRIPTS = Path(__file__).resolve().parents[1] / "sql" / "pgbench"
CLIENTS = 8
CHUNK = 1_000_000
BYTES_PER_JOB = 400  # heap + claim index + WAL headroom, per waiting or finished job (measured ~190 + WAL)
OWNERS = 100  # live sessions whose claims the reaper finds
PAYLOAD = '{{"userId": 1, "email": "user1@example.com", "template": "welcome-email"}}'
ENQUEUE = "\\set k random(1, {queues})\n" f"select q.enqueue('b' || :k, '{PAYLOAD}');\n"


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _median_call(conn: psycopg.Connection[Any], sql: str, n: int = 3) -> float:
    return statistics.median(_timed(lambda: conn.execute(sql).fetchall()) for _ in range(n))


def _free_bytes(ctx: Context) -> int:
    data = ctx.server.setting("data_directory") if ctx.server.own else "/"
    try:
        return shutil.disk_usage(data).free
    except OSError:
        return shutil.disk_usage("/").free


def _room_for(ctx: Context, rows: int, notes: list[str], what: str) -> bool:
    need, free = rows * BYTES_PER_JOB, _free_bytes(ctx)
    if free < need * 2:
        notes.append(f"**Skipped {what}**: it needs about {need / 1e9:.1f} GB and only {free / 1e9:.1f} GB are free.")
        return False
    return True


def _load(conn: psycopg.Connection[Any], n: int) -> None:
    """n more waiting jobs, in 1M-row transactions (bounded WAL and memory per statement)."""
    for start in range(0, n, CHUNK):
        databases.fill_pgq(conn, min(CHUNK, n - start), databases.PAYLOAD_SQL)


def _bench(ctx: Context, db: str, script: str, backlog: int | None = None,
           reset: Callable[[], None] | None = None) -> float:
    """Median tps of the profile's runs; every run is the same number of transactions per client (at most
    half the backlog in all), so the smallest backlog never runs dry and every size does the same work."""
    p = ctx.profile
    per_client = p.scale_transactions if backlog is None else min(p.scale_transactions, backlog // (2 * CLIENTS))
    runs = []
    for _ in range(p.reps):
        if reset is not None:
            reset()
        runs.append(pgbench.run(ctx.server, db, script, CLIENTS, 60, transactions=max(1, per_client)).tps)
    return statistics.median(runs)


@contextmanager
def _scratch(ctx: Context, db: str) -> Iterator[str]:
    """A pgq database for one curve, dropped when the curve is done (at most one large database at a time)."""
    databases.new_pgq(ctx.server, db)
    try:
        yield db
    finally:
        ctx.server.drop(db)


def backlog_curve(ctx: Context, notes: list[str]) -> dict[int, dict[str, float]]:
    p, srv = ctx.profile, ctx.server
    out: dict[int, dict[str, float]] = {}
    have = 0
    with _scratch(ctx, "bench_scale_backlog") as db:
        with srv.connect(db) as conn:
            for size in p.scale_sizes:
                if not _room_for(ctx, size - have, notes, f"{size:,} waiting jobs"):
                    break
                load_s = _timed(lambda n=size - have: _load(conn, n))
                vacuum_s = _timed(lambda: databases.execute(conn, "vacuum (analyze) q_data.job"))
                have = size
                ctx.log(f"scale: {size:,} waiting (load {load_s:.1f} s, vacuum {vacuum_s:.1f} s)")
                row = {"load_s": load_s, "vacuum_s": vacuum_s}
                for key, name in (("claim", "pgq_claim"), ("cycle", "pgq_cycle")):
                    row[key] = _bench(ctx, db, (SCRIPTS / f"{name}.sql").read_text(), size,
                                      lambda size=size: databases.reset_pgq(conn, size))
                databases.reset_pgq(conn, size)
                row["stats_s"] = _median_call(conn, "select * from q.stats()")
                row["table_mb"] = databases.execute(
                    conn, "select pg_total_relation_size('q_data.job') / 1e6").fetchone()[0]
                out[size] = row
                ctx.log(f"scale: {size:,}: claim {row['claim']:.0f}/s, cycle {row['cycle']:.0f}/s, "
                        f"stats {row['stats_s'] * 1000:.1f} ms")
    return out


def queue_curve(ctx: Context) -> dict[int, float]:
    p, srv = ctx.profile, ctx.server
    out: dict[int, float] = {}
    with _scratch(ctx, "bench_scale_queues") as db:
        with srv.connect(db) as conn:
            for n in p.scale_queues:
                conn.execute("select count(q.configure('b' || g)) from generate_series(1, %s) g", (n,))
                databases.execute(conn, "truncate q_data.job")
                databases.execute(conn, "vacuum (analyze) q_data.queue")
                out[n] = _bench(ctx, db, ENQUEUE.format(queues=n))
                ctx.log(f"scale: enqueue into {n:,} queues: {out[n]:.0f}/s")
    return out


def reap_curve(ctx: Context) -> dict[str, float]:
    p, srv = ctx.profile, ctx.server
    out: dict[str, float] = {}
    with _scratch(ctx, "bench_scale_reap") as db:
        with srv.connect(db) as holder, srv.connect(db) as conn:
            # 100 live "sessions": their keys are held, so the reaper may take none of them.
            holder.execute("select count(pg_advisory_lock(q.lock_space(), k)) from generate_series(1, %s) k",
                           (OWNERS,))
            qid = databases.queue_id(conn)
            have = 0
            for n in p.scale_running:
                if n > have:
                    with conn.transaction():
                        conn.execute("set local pgq.notify = off")
                        databases.execute(
                            conn,
                            "insert into q_data.job"
                            " (queue_id, payload, run_at, state, attempt, token, lease_until, owner)"
                            f" select %s, {databases.PAYLOAD_SQL}, clock_timestamp(), 'r', 1, gen_random_uuid(),"
                            " clock_timestamp() + interval '1 hour', 1 + g %% %s from generate_series(1, %s) g",
                            (qid, OWNERS, n - have),
                        )
                    have = n
                databases.execute(conn, "vacuum (analyze) q_data.job")
                out[f"{n:,} running"] = _median_call(conn, "select q.reap()", 5)
                ctx.log(f"scale: reap with {n:,} running: {out[f'{n:,} running'] * 1000:.1f} ms")
            idle = p.scale_idle_queues
            conn.execute("select count(q.configure('idle' || g)) from generate_series(1, %s) g", (idle,))
            databases.execute(conn, "vacuum (analyze) q_data.queue")
            key = f"{have:,} running + {idle:,} idle queues"
            out[key] = _median_call(conn, "select q.reap()", 5)
            ctx.log(f"scale: reap with {key}: {out[key] * 1000:.1f} ms")
    return out


def history_curve(ctx: Context, notes: list[str]) -> dict[int, dict[str, float]]:
    p, srv = ctx.profile, ctx.server
    out: dict[int, dict[str, float]] = {}
    have = 0
    script = (SCRIPTS / "pgq_claim.sql").read_text()
    with _scratch(ctx, "bench_scale_history") as db:
        with srv.connect(db) as conn:
            conn.execute("select q.configure(%s, keep_completed => true)", (databases.QUEUE,))
            qid = databases.queue_id(conn)
            for n in p.scale_history:
                if not _room_for(ctx, n - have, notes, f"{n:,} history rows"):
                    break

                def load(n: int = n, have: int = have) -> None:
                    for start in range(have, n, CHUNK):
                        databases.execute(
                            conn,
                            "insert into q_data.job_history (id, queue_id, state, payload, priority, attempt, run_at,"
                            f" finished_at) select -g, %s, 'completed', {databases.PAYLOAD_SQL}, 0, 1,"
                            " now() - interval '1 day', now() - interval '1 hour' + g * interval '1 microsecond'"
                            " from generate_series(%s::bigint, %s::bigint) g",
                            (qid, start + 1, min(n, start + CHUNK)),
                        )
                    databases.execute(conn, "vacuum (analyze) q_data.job_history")

                load_s = _timed(load)
                have = n
                w = p.scale_history_waiting
                out[n] = {"claim": _bench(ctx, db, script, w, lambda w=w: databases.reset_pgq(conn, w)),
                          "load_s": load_s}
                ctx.log(f"scale: claims with {n:,} history rows: {out[n]['claim']:.0f}/s (load {load_s:.1f} s)")
    return out


def _flat(name: str, curve: dict[Any, float], unit: str) -> Target:
    """A hot-path figure at the largest size is at least 0.9x the smallest
    (design.md#what-the-benchmarks-hold-pgq-to)."""
    if len(curve) < 2:
        return Target(name=name, holds=None, detail="fewer than two sizes measured")
    keys = list(curve)
    a, b = curve[keys[0]], curve[keys[-1]]
    r = ratio(b, a)
    return Target(name=name, holds=r >= 0.9,
                  detail=f"{r:.2f} ({rate(b)} {unit} at {keys[-1]:,} vs {rate(a)} at {keys[0]:,})")


def run(ctx: Context) -> Section:
    p = ctx.profile
    notes: list[str] = []
    free = _free_bytes(ctx)
    ctx.log(f"scale: {free / 1e9:.0f} GB free")
    if p.name == "full" and max(p.scale_sizes, default=0) < 10_000_000:
        notes.append(f"**A shortened run** (`--scale-max`): the largest backlog here is {max(p.scale_sizes):,} "
                     f"and the largest history {max(p.scale_history):,}, not 10,000,000.")
    backlog = backlog_curve(ctx, notes)
    queues = queue_curve(ctx)
    reap = reap_curve(ctx)
    history = history_curve(ctx, notes)

    tables = [
        Table(caption=f"backlog: {CLIENTS} pgbench clients, {p.scale_transactions} transactions each (fewer at "
                      f"small backlogs: at most half of it), median of {p.reps}",
              headers=["waiting jobs", "load (INSERT ... SELECT)", "vacuum", "q_data.job + indexes", "claims/s",
                       "claim + complete cycles/s", "q.stats()"],
              rows=[[f"{n:,}", f"{r['load_s']:.1f} s", f"{r['vacuum_s']:.1f} s", f"{r['table_mb']:,.0f} MB",
                     rate(r["claim"]), rate(r["cycle"]), f"{r['stats_s'] * 1000:,.1f} ms"]
                    for n, r in backlog.items()]),
        Table(caption=f"enqueue, {CLIENTS} clients, each call into a random queue of N",
              headers=["queues", "enqueues/s"], rows=[[f"{n:,}", rate(v)] for n, v in queues.items()]),
        Table(caption="q.reap() with nothing to recover (median of 5 calls)",
              headers=["state", "q.reap()"], rows=[[k, f"{v * 1000:,.1f} ms"] for k, v in reap.items()]),
        Table(caption=f"claims, {CLIENTS} clients, {p.scale_history_waiting:,} waiting, finished jobs kept",
              headers=["history rows", "load", "claims/s"],
              rows=[[f"{n:,}", f"{r['load_s']:.1f} s", rate(r["claim"])] for n, r in history.items()]),
    ]
    targets = [
        _flat("scale: claims at the largest backlog ≥ 0.9x the smallest", {n: r["claim"] for n, r in backlog.items()},
              "claims/s"),
        _flat("scale: claim + complete at the largest backlog ≥ 0.9x the smallest",
              {n: r["cycle"] for n, r in backlog.items()}, "cycles/s"),
        _flat("scale: enqueue into the most queues ≥ 0.9x into one", queues, "enqueues/s"),
        _flat("scale: claims with the most history ≥ 0.9x with none", {n: r["claim"] for n, r in history.items()},
              "claims/s"),
        Target(name="scale: q.reap() under 100 ms at every size (bounded)", holds=max(reap.values()) < 0.1,
               detail=f"slowest {max(reap.values()) * 1000:,.1f} ms ({max(reap, key=lambda k: reap[k])})"),
    ]
    if backlog:
        worst = max(backlog, key=lambda n: backlog[n]["stats_s"])
        targets.append(Target(name="scale: q.stats() under 100 ms at every backlog (bounded)",
                              holds=backlog[worst]["stats_s"] < 0.1,
                              detail=f"slowest {backlog[worst]['stats_s'] * 1000:,.1f} ms at {worst:,} waiting"))

    c1 = ctx.charts / "scale_backlog.png"
    charts.lines(c1, f"Claims vs backlog ({CLIENTS} clients)", "waiting jobs", "per second",
                 {"q.claim('bench', 1)": [(n, r["claim"]) for n, r in backlog.items()],
                  "claim + complete": [(n, r["cycle"]) for n, r in backlog.items()],
                  "claims, by history rows kept (x = history rows)": [(max(n, 1), r["claim"])
                                                                     for n, r in history.items()]},
                 logx=True)
    c2 = ctx.charts / "scale_maintenance.png"
    charts.lines(c2, "Maintenance calls vs size", "rows (waiting jobs for q.stats, running jobs for q.reap)", "ms",
                 {"q.stats()": [(n, r["stats_s"] * 1000) for n, r in backlog.items()],
                  "q.reap()": [(max(int(k.split()[0].replace(",", "")), 1), v * 1000)
                               for k, v in reap.items() if "idle" not in k]},
                 logx=True)
    c3 = ctx.charts / "scale_queues.png"
    charts.lines(c3, f"Enqueue vs number of queues ({CLIENTS} clients)", "queues", "enqueues/s",
                 {"q.enqueue": list(queues.items())}, logx=True)
    return Section(
        key="scale",
        title="Scale curve: backlog, queues, running jobs, history",
        method=" ".join((__doc__ or "").split("\n\n", 1)[1].split()),
        tables=tables,
        targets=targets,
        notes=notes,
        charts=[c1.name, c2.name, c3.name],
        data={"backlog": backlog, "queues": queues, "reap": reap, "history": history},
    )
