"""13. Schedules (design.md#schedules-fired-by-the-reaper): fire lateness, the cost of a reap turn,
and claims beside 10,000 schedules.

* Lateness: one pgq worker (`App` with default settings, reaper every 1 s)
  and `schedules_ticks` schedules `every 1 second`, for `schedules_lateness_s`.
  Slot -> enqueued is the job's run_at (set by the reap that fired it) minus
  its slot; slot -> handler start is taken in the handler (time.time()).
* Reap turn: `select q.reap()` round trips with 0 / 1,000 / 10,000 schedules
  defined and none due (the scheduler's clock steered with pgq.schedule_now),
  and one turn that fires 1,000 due schedules at once (cost per fire).
* Claims: pgbench `q.claim('bench', 1)` at 4 clients on a backlog, with a
  reaper calling q.reap() every second, in a database without schedules and
  one with 10,000 (daily cron at random times), alternating.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import psycopg

from .. import databases, pgbench
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, ms, percentile, rate, ratio

SCRIPT = (Path(__file__).resolve().parents[1] / "sql" / "pgbench" / "pgq_claim.sql").read_text()
CLIENTS = 4
CLOCK = "2026-01-01 00:00:30Z"  # the steered clock the reap-turn figures use


def _test_clock(dsn: str) -> str:
    """Turn the scheduler's test clock on in a bench database (off by default from revision 0008)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("do $$ begin if to_regprocedure('q.allow_test_clock(boolean)') is not null then"
                     " perform q.allow_test_clock(true); end if; end $$")
    return dsn


def _daily(conn: psycopg.Connection[Any], n: int, seed: int) -> None:
    """n schedules of a daily cron at random times, created at CLOCK (none due before 00:01)."""
    with conn.transaction():
        conn.execute("select set_config('pgq.schedule_now', %s, true)", (CLOCK,))
        conn.execute("select setseed(%s)", (seed / 100_000,))
        conn.execute("select count(q.schedule('daily-' || g, (1 + floor(random() * 59))::int || ' '"
                     " || floor(random() * 24)::int || ' * * *', 'sched-bench'))"
                     " from generate_series(1, %s) g", (n,))


def lateness(ctx: Context) -> tuple[list[float], list[float]]:
    from pgq_client import App

    p = ctx.profile
    dsn = _test_clock(databases.new_pgq(ctx.server, "bench_sched_late"))
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select q.configure('ticks', keep_completed => true)")
    started: list[float] = []
    app = App()

    @app.task(queue="ticks", concurrency=10)
    def tick(payload: dict[str, Any]) -> None:
        started.append(time.time() - _epoch(payload["slot"]))

    for i in range(p.schedules_ticks):
        app.periodic(every=1, name=f"tick-{i:03d}")(tick)
    worker = app.worker(database_url=dsn)
    worker.start()  # type: ignore[union-attr]  (plain tasks: the threaded Worker)
    try:
        time.sleep(p.schedules_lateness_s)
    finally:
        worker.stop()  # type: ignore[union-attr]
        worker.join(30)  # type: ignore[union-attr]
    with psycopg.connect(dsn, autocommit=True) as conn:
        enqueued = [r[0] for r in databases.execute(
            conn,
            "select extract(epoch from run_at - (payload->>'slot')::timestamptz)::float8 from q_data.job_history"
            " union all select extract(epoch from run_at - (payload->>'slot')::timestamptz)::float8 from q_data.job")]
    ctx.server.drop("bench_sched_late")
    return enqueued, started


def _epoch(slot: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(slot.replace("Z", "+00:00")).timestamp()


def reap_turns(ctx: Context) -> tuple[dict[int, list[float]], dict[int, float], list[float]]:
    p = ctx.profile
    turns: dict[int, list[float]] = {}
    alone: dict[int, float] = {}
    for n in sorted({0, min(1_000, p.schedules_many), p.schedules_many}):
        db = f"bench_sched_reap_{n}"
        dsn = _test_clock(databases.new_pgq(ctx.server, db))
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("select q.configure('sched-bench')")  # the same queue rows for every n
            _daily(conn, n, seed=n)
            databases.execute(conn, "vacuum analyze q_data.schedule")
            conn.execute("set pgq.schedule_now = '2026-01-01 00:00:40Z'")
            for _ in range(20):
                conn.execute("select q.reap()")  # warm: plans cached
            times = []
            for _ in range(p.schedules_reap_calls):
                t0 = time.perf_counter()
                conn.execute("select q.reap()")
                times.append(time.perf_counter() - t0)
            turns[n] = times
            # The scheduler's share alone, without the round trip: 1,000 calls in one server-side loop.
            t0 = time.perf_counter()
            conn.execute("do $$ begin for i in 1..1000 loop perform q.fire_schedules(1000); end loop; end $$")
            alone[n] = (time.perf_counter() - t0) / 1000
            fired = databases.execute(conn, "select count(*) from q_data.job").fetchone()[0]  # type: ignore[index]
            assert fired == 0, f"{fired} schedules fired in the idle-turn measurement"
        ctx.server.drop(db)
        ctx.log(f"schedules: reap turn with {n:,} schedules: median {ms(median(times))},"
                f" q.fire_schedules alone {alone[n] * 1e6:.0f} µs")
    # One turn that fires 1,000 due schedules.
    dsn = _test_clock(databases.new_pgq(ctx.server, "bench_sched_fire"))
    per_fire: list[float] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        with conn.transaction():
            conn.execute("select set_config('pgq.schedule_now', %s, true)", (CLOCK,))
            for i in range(1_000):
                conn.execute("select q.schedule(%s, '* * * * *', 'sched-bench')", (f"minutely-{i:04d}",))
        for rep in range(p.reps):
            conn.execute("select set_config('pgq.schedule_now', %s, false)", (f"2026-01-01 00:{rep + 1:02d}:00.2Z",))
            t0 = time.perf_counter()
            conn.execute("select q.reap(max_jobs => 1000)")
            elapsed = time.perf_counter() - t0
            fired = databases.execute(conn, "select count(*) from q_data.job").fetchone()[0]  # type: ignore[index]
            assert fired == 1_000, f"expected 1,000 fires, got {fired}"
            per_fire.append(elapsed / 1_000)
            databases.execute(conn, "delete from q_data.job")
    ctx.server.drop("bench_sched_fire")
    return turns, alone, per_fire


class Reaper(threading.Thread):
    """q.reap() every second, as one worker's maintenance loop does."""

    def __init__(self, dsn: str) -> None:
        super().__init__(daemon=True)
        self.dsn = dsn
        self.done = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            while not self.done.wait(1.0):
                conn.execute("select q.reap()")


def claims(ctx: Context) -> dict[str, list[float]]:
    p = ctx.profile
    none_db, many_db = "bench_sched_claims_none", "bench_sched_claims_many"
    for db in (none_db, many_db):
        dsn = _test_clock(databases.new_pgq(ctx.server, db))
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("select q.configure('sched-bench')")  # the same queue rows in both
            if db == many_db:
                _daily(conn, p.schedules_many, seed=7)
                # Real clock from here on: move the daily slots to after now.
                databases.execute(
                    conn, "update q_data.schedule set next_fire_at = q.next_slot(spec, every, timezone, now())")
                databases.execute(conn, "vacuum analyze q_data.schedule")
            databases.fill_pgq(conn, p.schedules_claim_waiting)
            conn.execute("vacuum (analyze)")  # no autovacuum of the set-up during a measured run
    tps: dict[str, list[float]] = defaultdict(list)
    for rep in range(p.reps):
        for db in ctx.order([none_db, many_db], rep):
            with ctx.server.connect(db) as conn:
                databases.reset_pgq(conn, p.schedules_claim_waiting)
                conn.execute("checkpoint")
            reaper = Reaper(ctx.server.dsn(db))
            reaper.start()
            try:
                tps[db].append(pgbench.run(ctx.server, db, SCRIPT, CLIENTS, p.schedules_claim_seconds,
                                           transactions=p.pgbench_transactions).tps)
            finally:
                reaper.done.set()
                reaper.join(10)
        ctx.log(f"schedules: claims run {rep + 1}: none {tps[none_db][-1]:.0f},"
                f" {p.schedules_many:,} schedules {tps[many_db][-1]:.0f}")
    for db in (none_db, many_db):
        ctx.server.drop(db)
    return {"none": tps[none_db], "many": tps[many_db]}


def run(ctx: Context) -> Section:
    p = ctx.profile
    enqueued, started = lateness(ctx)
    ctx.log(f"schedules: lateness over {len(started)} fires")
    turns, alone, per_fire = reap_turns(ctx)
    tps = claims(ctx)
    none, many = median(tps["none"]), median(tps["many"])
    r = ratio(many, none)
    spread = [ratio(b, a) for a, b in zip(tps["none"], tps["many"], strict=False)]
    p99_start = percentile(started, 99)
    sec = Section(
        key="schedules",
        title="13. Schedules",
        method=(
            f"Lateness: one `App` worker with default settings (reaper turn every 1 s), {p.schedules_ticks} "
            f"schedules `every => 1 second`, {p.schedules_lateness_s:g} s; slot -> enqueued is the job's run_at "
            "minus its slot, slot -> handler start is measured in the handler. Reap turn: the round trip of "
            f"`select q.reap()` ({p.schedules_reap_calls} calls, after 20 warm-up calls) with 0 / 1,000 / "
            f"{p.schedules_many:,} daily cron schedules defined and none due (clock steered with "
            "pgq.schedule_now), and one turn "
            f"firing 1,000 due schedules ({p.reps} runs). Claims: pgbench `-c {CLIENTS}` `q.claim('bench', 1)` "
            f"on {p.schedules_claim_waiting:,} waiting jobs for {p.schedules_claim_seconds} s, a reaper thread "
            f"calling q.reap() every second, without schedules and with {p.schedules_many:,} defined; alternating, "
            "median of "
            f"{p.reps}. 2 shared cores: single runs move by several percent."
        ),
        tables=[
            Table(caption="fire lateness", headers=["from slot to", "fires", "p50", "p99", "max"],
                  rows=[["job enqueued", str(len(enqueued)), ms(percentile(enqueued, 50)),
                         ms(percentile(enqueued, 99)), ms(max(enqueued, default=float("nan")))],
                        ["handler start", str(len(started)), ms(percentile(started, 50)),
                         ms(percentile(started, 99)), ms(max(started, default=float("nan")))]]),
            Table(caption="one reap turn",
                  headers=["schedules defined", "due", "q.reap round trip, median", "p99", "q.fire_schedules alone"],
                  rows=[[f"{n:,}", "0", ms(median(v)), ms(percentile(v, 99)), f"{alone[n] * 1e6:.0f} µs"]
                        for n, v in turns.items()]
                  + [["1,000", "1,000", ms(median(per_fire) * 1000), "", f"{median(per_fire) * 1e6:.0f} µs per fire"]]),
            Table(caption=f"claims/s, {CLIENTS} clients, reaper every second",
                  headers=["schedules defined", "claims/s (median)", "runs"],
                  rows=[["none", rate(none), " ".join(rate(x) for x in tps["none"])],
                        [f"{p.schedules_many:,}", rate(many), " ".join(rate(x) for x in tps["many"])],
                        ["ratio", f"{r:.3f}", " ".join(f"{x:.3f}" for x in spread)]]),
        ],
        data={"enqueued_s": enqueued, "started_s": started, "turns_s": {str(k): v for k, v in turns.items()},
              "fire_schedules_alone_s": {str(k): v for k, v in alone.items()},
              "per_fire_s": per_fire, "tps": tps},
    )
    sec.targets.append(Target(name="fire lateness p99 (slot -> handler start) ≤ 1.5 s", holds=p99_start <= 1.5,
                              detail=f"{ms(p99_start)} over {len(started)} fires"))
    holds = r >= 0.97 if p.schedules_many >= 10_000 else None  # the quick run has fewer: not the target
    sec.targets.append(Target(name="claims with 10,000 schedules ≥ 0.97x none", holds=holds,
                              detail=f"{r:.3f} with {p.schedules_many:,} ({rate(many)} vs {rate(none)} claims/s;"
                                     " per-run ratios "
                                     f"{', '.join(f'{x:.3f}' for x in spread)})"))
    return sec
