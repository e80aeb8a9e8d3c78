"""12. Observability: q.stats at 10 million jobs, and what the throughput tally costs the hot path.

Two parts, each on databases of its own, dropped when done:

1. Stats at scale: 10,000,000 waiting jobs spread over 100 queues (the quick
   profile: a few thousand), loaded by INSERT ... SELECT in 1M-row
   transactions, vacuumed and analyzed. Timed: `q.stats()` (exact up to 1,000
   per count, the planner's estimate above), `q.stats(exact_up_to => 0)`, and
   the one-pass count the previous revision ran (its SQL, as it was), each
   the median of several calls after a warm-up; and how far the estimates
   are from the true per-queue counts.
2. The hot path, side by side in one run: pgbench claim + complete (one job
   per transaction) and claim 50 + complete_many at 4 clients on three
   databases with the same backlog: pgq at the revision before this one (no
   tally), pgq at head, and head with q_data.tally's body emptied (the call, no
   insert). Alternating order, the median of the profile's runs.
"""

from __future__ import annotations

import shutil
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from .. import databases, pgbench
from ..cluster import ROOT
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, rate, ratio

SCRIPTS = Path(__file__).resolve().parents[1] / "sql" / "pgbench"
CYCLE = (SCRIPTS / "pgq_cycle.sql").read_text()
BATCH = (SCRIPTS / "pgq_batch.sql").read_text()
CLIENTS = 4
CHUNK = 1_000_000
BYTES_PER_JOB = 400
# PREV2 is a second copy of the revision before: head vs PREV says what the tally costs, PREV2 vs
# PREV what the measurement itself wobbles (an A/A comparison in the same run).
STATS_DB, PREV_DB, HEAD_DB, PREV2_DB = "bench_obs_stats", "bench_obs_prev", "bench_obs_head", "bench_obs_prev2"
# The server's own cost of the hot path, without client or network: one session runs n cycles
# (claim 1 + complete, or claim 50 + complete_many) in a loop and reports microseconds per cycle.
LOOP = """
create or replace function pg_temp.cycles(n integer, batch integer) returns float8 language plpgsql as $f$
declare
  t0 timestamptz := clock_timestamp();
  r record;
  ids bigint[];
  tokens uuid[];
begin
  for i in 1 .. n loop
    if batch = 1 then
      for r in select c.id, c.token from q.claim('bench', 1, owner => 0) c loop
        perform q.complete(r.id, r.token);
      end loop;
    else
      select array_agg(c.id), array_agg(c.token) into ids, tokens from q.claim('bench', batch, owner => 0) c;
      perform q.complete_many(ids, tokens);
    end if;
  end loop;
  return extract(epoch from clock_timestamp() - t0) * 1e6 / n;
end
$f$
"""
# The q.stats of revisions 0001-0005: one pass over the hot table (its body, verbatim but for where its
# tables are: it names them in q, as 0001 had them; run through databases.adapt).
OLD_STATS = (ROOT / "alembic" / "sql" / "0001" / "functions" / "stats.sql").read_text()
OLD_STATS_QUERY = databases.frozen_before_0008(
    OLD_STATS.split("as $$", 1)[1].split("$$;", 1)[0], "job", "job_history", "queue")


def previous_revision() -> str:
    """The Alembic revision just before the one that added q_data.tally (what 'without the tally' runs)."""
    for path in sorted((ROOT / "alembic" / "sql").glob("*/schema/*_observe.sql")):
        rev = path.parts[-3]
        for version in (ROOT / "alembic" / "versions").glob(f"{rev}_*.py"):
            for line in version.read_text().splitlines():
                if line.startswith("down_revision = "):
                    return line.split("=", 1)[1].strip().strip("'\"")
    raise RuntimeError("no revision freezes schema/*_observe.sql")


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _calls(conn: psycopg.Connection[Any], sql: str, n: int) -> list[float]:
    conn.execute(sql).fetchall()  # warm-up: plans cached, pages in shared buffers
    return [_timed(lambda: conn.execute(sql).fetchall()) for _ in range(n)]


def _room(ctx: Context, rows: int) -> bool:
    data = ctx.server.setting("data_directory") if ctx.server.own else "/"
    try:
        free = shutil.disk_usage(data).free
    except OSError:
        free = shutil.disk_usage("/").free
    return free >= 2 * rows * BYTES_PER_JOB


def stats_at_scale(ctx: Context, notes: list[str]) -> dict[str, Any]:
    p, srv = ctx.profile, ctx.server
    jobs, queues = p.observe_jobs, p.observe_queues
    if not _room(ctx, jobs):
        need = jobs * BYTES_PER_JOB / 1e9
        notes.append(f"**Skipped stats at {jobs:,} jobs**: not enough free disk for about {need:.1f} GB.")
        return {}
    databases.new_pgq(srv, STATS_DB)
    try:
        with srv.connect(STATS_DB) as conn:
            conn.execute("select q.ensure_queue('obs' || g) from generate_series(1, %s) g", (queues,))
            first = databases.execute(conn, "select min(id) from q_data.queue where name like 'obs%%'").fetchone()[0]
            t0 = time.perf_counter()
            for start in range(0, jobs, CHUNK):
                n = min(CHUNK, jobs - start)
                with conn.transaction():
                    conn.execute("set local pgq.notify = off")
                    databases.execute(
                        conn,
                        "insert into q_data.job (queue_id, payload, run_at, state)"
                        f" select %s::integer + (g %% %s)::integer, {databases.PAYLOAD_SQL}, clock_timestamp(), 'w'"
                        " from generate_series(%s::bigint, %s::bigint) g",
                        (first, queues, start + 1, start + n),
                    )
            load_s = time.perf_counter() - t0
            databases.execute(conn, "vacuum (analyze) q_data.job")
            ctx.log(f"observe: {jobs:,} waiting jobs over {queues} queues loaded in {load_s:.0f} s")
            new = _calls(conn, "select * from q.stats()", p.observe_stats_calls)
            zero = _calls(conn, "select * from q.stats(exact_up_to => 0)", p.observe_stats_calls)
            old = _calls(conn, databases.adapt(conn, OLD_STATS_QUERY), max(1, min(3, p.observe_stats_calls)))
            truth = dict(databases.execute(
                conn,
                "select qq.name, count(*) from q_data.job j join q_data.queue qq on qq.id = j.queue_id group by qq.name"
            ).fetchall())
            rows = conn.execute(
                "select queue, waiting, waiting_exact from q.stats() where queue like 'obs%%'").fetchall()
            errors = [abs(w - truth[qn]) / truth[qn] for qn, w, exact in rows if not exact and truth.get(qn)]
            exact = sum(1 for _, _, e in rows if e)
    finally:
        srv.drop(STATS_DB)
    return {"jobs": jobs, "queues": queues, "load_s": load_s, "new": new, "zero": zero, "old": old,
            "max_error": max(errors) if errors else 0.0, "median_error": median(errors) if errors else 0.0,
            "estimated_queues": len(errors), "exact_queues": exact}


def _cpu_ns(pid: int) -> int | None:
    """Nanoseconds a process has run on a CPU (Linux schedstat): what it cost, not how long it waited."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def server_loop(ctx: Context, variants: list[str]) -> dict[str, dict[str, list[float]]]:
    """Per cycle, each variant's session running blocks in turn, many rounds: wall µs, and CPU µs of the
    backend when its /proc entry is readable (the harness's own cluster), which a loaded machine disturbs
    far less than wall time."""
    p, srv = ctx.profile, ctx.server
    us: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    conns = {db: srv.connect(db) for db in variants}
    try:
        pids = {}
        for db, conn in conns.items():
            conn.execute(LOOP)
            databases.reset_pgq(conn, p.observe_backlog)
            pids[db] = conn.execute("select pg_backend_pid()").fetchone()[0]
        for rnd in range(p.observe_loop_rounds):
            for db in ctx.order(variants, rnd):
                for name, batch, n in (("cycle", 1, p.observe_loop_cycles), ("batch", 50, p.observe_loop_cycles // 10)):
                    before = _cpu_ns(pids[db])
                    us[name][db].append(conns[db].execute("select pg_temp.cycles(%s, %s)", (n, batch)).fetchone()[0])
                    after = _cpu_ns(pids[db])
                    if before is not None and after is not None:
                        us[f"cpu_{name}"][db].append((after - before) / 1000 / n)
            if rnd % 5 == 4:
                for db, conn in conns.items():
                    if db == HEAD_DB:
                        databases.execute(conn, "truncate q_data.tally")
                    databases.reset_pgq(conn, p.observe_backlog)
    finally:
        for conn in conns.values():
            conn.close()
    return {k: dict(v) for k, v in us.items()}


def hot_path(ctx: Context, prev: str) -> dict[str, dict[str, list[float]]]:
    p, srv = ctx.profile, ctx.server
    databases.install_pgq_template(srv, prev)
    variants = {PREV_DB: prev, HEAD_DB: None, PREV2_DB: prev}
    for db, rev in variants.items():
        databases.new_pgq(srv, db, rev)
    tps: dict[str, dict[str, list[float]]] = {"cycle": defaultdict(list), "batch": defaultdict(list)}
    try:
        tps.update({f"loop_{k}": v for k, v in server_loop(ctx, list(variants)).items()})
        for rep in range(p.observe_reps):
            for db in ctx.order(list(variants), rep):
                for name, script in (("cycle", CYCLE), ("batch", BATCH)):
                    with srv.connect(db) as conn:
                        if db == HEAD_DB:
                            databases.execute(conn, "truncate q_data.tally")
                        databases.reset_pgq(conn, p.observe_backlog)
                    tps[name][db].append(pgbench.run(srv, db, script, CLIENTS, p.observe_seconds,
                                                     transactions=p.pgbench_transactions).tps)
            ctx.log(f"observe: run {rep + 1}: " + ", ".join(
                f"{n} {db.removeprefix('bench_obs_')} {tps[n][db][-1]:.0f}" for n in ("cycle", "batch")
                for db in variants))
    finally:
        for db in variants:
            srv.drop(db)
        srv.drop(databases.template(prev))
    return tps


def run(ctx: Context) -> Section:
    p = ctx.profile
    notes: list[str] = []
    prev = previous_revision()
    st = stats_at_scale(ctx, notes)
    tps = hot_path(ctx, prev)

    tables, targets = [], []
    if st:
        new_ms, zero_ms, old_ms = (median(st[k]) * 1000 for k in ("new", "zero", "old"))
        tables.append(Table(
            caption=f"q.stats with {st['jobs']:,} waiting jobs over {st['queues']} queues (median of "
                    f"{len(st['new'])} calls; each call's time in the data)",
            headers=["call", "median", "all calls"],
            rows=[["`q.stats()` (exact up to 1,000, estimates above)", f"{new_ms:.1f} ms",
                   ", ".join(f"{x * 1000:.0f}" for x in st["new"])],
                  ["`q.stats(exact_up_to => 0)` (estimates only)", f"{zero_ms:.1f} ms",
                   ", ".join(f"{x * 1000:.0f}" for x in st["zero"])],
                  ["the previous revision's q.stats (one pass over the job table)", f"{old_ms:.1f} ms",
                   ", ".join(f"{x * 1000:.0f}" for x in st["old"])]]))
        notes.append(
            f"Estimates: {st['estimated_queues']} queue(s) above the bound got the planner's estimate, "
            f"{st['exact_queues']} were counted exactly; estimate vs true count: median error "
            f"{st['median_error'] * 100:.1f}%, worst {st['max_error'] * 100:.1f}% (right after ANALYZE). "
            f"Load: {st['load_s']:.0f} s.")
        targets.append(Target(
            name=f"q.stats ≤ 50 ms at {st['jobs']:,} waiting jobs over {st['queues']} queues",
            holds=new_ms <= 50 if st["jobs"] >= 10_000_000 else None,
            detail=f"median {new_ms:.1f} ms (previous revision {old_ms:.0f} ms)"
                   + ("" if st["jobs"] >= 10_000_000 else f"; not judged at {st['jobs']:,} jobs")))
    loop_rows = []
    measured = [(f"{kind}_{name}", f"{label}, {what}") for kind, what in (("loop_cpu", "CPU"), ("loop", "wall"))
                for name, label in (("cycle", "claim 1 + complete"), ("batch", "claim 50 + complete_many"))]
    for name, label in [(n, lb) for n, lb in measured if tps.get(n)]:
        prev_u, head_u, prev2_u = (median(tps[name][db]) for db in (PREV_DB, HEAD_DB, PREV2_DB))
        # Paired: each round's head block against the same round's block of the revision before (they
        # ran side by side, so drift within the run, e.g. dead rows piling up, cancels out).
        cost = median([ratio(h, b) for h, b in zip(tps[name][HEAD_DB], tps[name][PREV_DB], strict=True)]) - 1
        floor = median([ratio(h, b) for h, b in zip(tps[name][PREV2_DB], tps[name][PREV_DB], strict=True)]) - 1
        loop_rows.append([label, f"{prev_u:.1f}", f"{head_u:.1f}", f"{cost * 100:+.1f}%", f"{prev2_u:.1f}",
                          f"{floor * 100:+.1f}%"])
        targets.append(Target(
            name=f"{label} per cycle: head within 3% of the revision before the tally",
            holds=(cost <= 0.03) if p.observe_loop_rounds >= 9 and "CPU" in label else None,
            detail=f"{cost * 100:+.1f}% (median of the per-round ratios; medians {head_u:.1f} vs {prev_u:.1f} µs "
                   f"per cycle, {p.observe_loop_rounds} alternating blocks; A/A noise {floor * 100:+.1f}%)"))
    tables.append(Table(
        caption=f"server time per cycle in µs (CPU: the backend's time on a CPU; wall: elapsed), one session per "
                f"database, {p.observe_loop_cycles:,} cycles (batch: a tenth) per block, median of "
                f"{p.observe_loop_rounds} alternating blocks",
        headers=["cycle", f"pgq@{prev} (no tally)", "head", "head vs before (paired)",
                 f"pgq@{prev}, second copy", "A/A: copy vs first (noise)"],
        rows=loop_rows))
    rows = []
    for name, label in (("cycle", "claim 1 + complete"), ("batch", "claim 50 + complete_many")):
        prev_t, head_t, prev2_t = (median(tps[name][db]) for db in (PREV_DB, HEAD_DB, PREV2_DB))
        r = ratio(head_t, prev_t)
        rows.append([label, rate(prev_t), rate(head_t), f"{r:.3f}", rate(prev2_t), f"{ratio(prev2_t, prev_t):.3f}"])
        targets.append(Target(
            name=f"{label}, pgbench: head ≥ 0.97x the revision before the tally",
            holds=(r >= 0.97) if p.observe_reps >= 9 else None,
            detail=f"{r:.3f} ({rate(head_t)} vs {rate(prev_t)} tx/s, median of {p.observe_reps}; runs "
                   + "; ".join(f"{db.removeprefix('bench_obs_')} " + ", ".join(f"{x:.0f}" for x in tps[name][db])
                               for db in (PREV_DB, HEAD_DB, PREV2_DB)) + ")"))
    tables.append(Table(
        caption=f"pgbench transactions/s, {CLIENTS} clients, {p.observe_backlog:,} waiting jobs, median of "
                f"{p.observe_reps} alternating runs",
        headers=["script", f"pgq@{prev} (no tally)", "head", "head / before", f"pgq@{prev}, second copy",
                 "A/A: copy / first"],
        rows=rows))
    return Section(
        key="observe",
        title="12. Observability: stats at scale, the tally's cost",
        method=(
            f"Stats: {p.observe_jobs:,} waiting jobs over {p.observe_queues} queues, vacuumed and analyzed; each "
            f"call timed from the client after one warm-up call. Hot path, on three databases with "
            f"{p.observe_backlog:,} waiting jobs: pgq@{prev} (before the tally), head, and a second copy of "
            f"pgq@{prev} (an A/A comparison: what the measurement itself wobbles). (a) Server time: one "
            "session per database runs blocks of claim + complete cycles in a plpgsql loop (no client, no "
            "network, no commit), the databases taking turns, many rounds; CPU is the backend's time on a CPU "
            "(/proc/<pid>/schedstat), the figure a loaded machine disturbs least; the cost is the median of "
            "the per-round head/before ratios. "
            f"(b) pgbench `-M simple -c {CLIENTS} -j {CLIENTS} -T {p.observe_seconds}` of "
            "bench/sql/pgbench/pgq_cycle.sql and pgq_batch.sql, backlog restored and vacuumed before each run, "
            "alternating order. No reaper runs "
            "during pgbench, so tally rows pile up (at most a few hundred thousand; inserts do not slow down "
            "with that). Timings on a shared machine: read the ratios, and the spread of the runs."
        ),
        tables=tables,
        targets=targets,
        notes=notes,
        data={"stats": st, "tps": {k: dict(v) for k, v in tps.items()}},
    )
