"""9. The one-CPU sweep (design.md#the-one-cpu-sweep): jobs that sleep 100 ms, 1 to 128 workers, three ways to connect.

Each worker is a thread: claim one job, sleep 100 ms, complete it, timing the
claim and the complete queries (the article's method). Connection modes: a
connection per worker, a shared psycopg_pool of 20, and PgBouncer in
transaction mode (pool 20; pgq claims lease-only there, owner 0, and psycopg
prepares nothing). The article's own raw queue runs with direct connections for
reference. One run per step, like the seed; every step starts from a fresh
backlog, vacuumed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import pgq_client
import psycopg
from psycopg_pool import ConnectionPool

from .. import bouncer, charts, databases
from ..context import Context
from ..model import Section, Table
from ..stats import median, ms, percentile, rate

WORK_S = 0.1
POOL = 20
RAW_CLAIM = """
UPDATE jobs SET status = 'running', locked_at = NOW()
WHERE id = (
  SELECT id FROM jobs
  WHERE status = 'pending' AND run_at <= NOW()
  ORDER BY run_at, id
  LIMIT 1
  FOR UPDATE SKIP LOCKED
)
RETURNING id"""
RAW_COMPLETE = "UPDATE jobs SET status = 'done', finished_at = NOW() WHERE id = %s"

MODES = ["seed 000 raw, direct", "pgq, direct", f"pgq, pool of {POOL}", f"pgq, PgBouncer (transaction, {POOL})"]


class Step:
    def __init__(self) -> None:
        self.done = 0
        self.claim_s: list[float] = []
        self.complete_s: list[float] = []
        self.failed = 0
        self.lock = threading.Lock()


def _worker(step: Step, get: Callable[[], AbstractContextManager[Any]], raw: bool, owner: int | None,
            start: threading.Barrier, end: list[float]) -> None:
    claim_s: list[float] = []
    complete_s: list[float] = []
    done = 0
    try:
        start.wait()
    except threading.BrokenBarrierError:
        return
    while time.perf_counter() < end[0]:
        t0 = time.perf_counter()
        with get() as conn:
            if raw:
                row = conn.execute(RAW_CLAIM).fetchone()
                job: Any = row[0] if row else None
            else:
                jobs = pgq_client.claim(conn, databases.QUEUE, 1, owner=owner)
                job = jobs[0] if jobs else None
        claim_s.append(time.perf_counter() - t0)
        if job is None:
            break
        time.sleep(WORK_S)
        t0 = time.perf_counter()
        with get() as conn:
            if raw:
                conn.execute(RAW_COMPLETE, (job,))
            else:
                pgq_client.complete(conn, job.id, job.token)
        complete_s.append(time.perf_counter() - t0)
        done += 1
    with step.lock:
        step.done += done
        step.claim_s += claim_s
        step.complete_s += complete_s


def _step(dsn: str, workers: int, seconds: float, mode: str) -> Step:
    step = Step()
    raw = mode.startswith("seed")
    pooled = "pool" in mode
    bounced = "PgBouncer" in mode
    kwargs: dict[str, Any] = {"autocommit": True}
    if bounced:
        kwargs["prepare_threshold"] = None
    pool: ConnectionPool[Any] | None = None
    conns: list[psycopg.Connection[Any]] = []
    getters: list[Callable[[], AbstractContextManager[Any]]] = []
    if pooled:
        pool = ConnectionPool(dsn, min_size=POOL, max_size=POOL, kwargs=kwargs, open=True)
        pool.wait(30)
        getters = [pool.connection] * workers
    else:
        for _ in range(workers):
            try:
                c = psycopg.connect(dsn, **kwargs)
            except psycopg.OperationalError:
                step.failed += 1
                continue
            conns.append(c)
            getters.append(lambda c=c: nullcontext(c))
    start = threading.Barrier(len(getters) + 1)
    end = [0.0]
    owner = 0 if bounced else None
    threads = [threading.Thread(target=_worker, args=(step, g, raw, owner, start, end), daemon=True) for g in getters]
    for t in threads:
        t.start()
    end[0] = time.perf_counter() + seconds
    start.wait()
    for t in threads:
        t.join(seconds + 60)
    for c in conns:
        c.close()
    if pool is not None:
        pool.close()
    return step


def run(ctx: Context) -> Section:
    p = ctx.profile
    srv = ctx.server
    pgq_db, raw_db = "bench_s0_pgq", "bench_s0_raw"
    databases.new_pgq(srv, pgq_db)
    databases.new_raw(srv, raw_db, "seed000.sql")
    backlog = int(max(p.seed000_workers) * (1 / WORK_S) * p.seed000_seconds * 1.5) + 100
    results: dict[tuple[str, int], Step] = {}
    notes: list[str] = []
    with bouncer.pgbouncer(srv) as bsrv:
        for i, workers in enumerate(p.seed000_workers):
            for mode in ctx.order(MODES, i):
                db = raw_db if mode.startswith("seed") else pgq_db
                with srv.connect(db) as conn:
                    if db == raw_db:
                        conn.execute("truncate jobs")
                        conn.execute("insert into jobs (payload) select jsonb_build_object('n', g)"
                                     " from generate_series(1, %s) g", (backlog,))
                        conn.execute("vacuum (analyze) jobs")
                    else:
                        databases.execute(conn, "truncate q_data.job")
                        databases.fill_pgq(conn, backlog)
                        databases.execute(conn, "vacuum (analyze) q_data.job")
                dsn = bsrv.dsn(db) if "PgBouncer" in mode else srv.dsn(db)
                results[(mode, workers)] = _step(dsn, workers, p.seed000_seconds, mode)
            ctx.log(f"seed000: {workers} workers: " + ", ".join(
                f"{m.split(',')[0] if m.startswith('seed') else m}: {results[(m, workers)].done}" for m in MODES))
    srv.drop(pgq_db)
    srv.drop(raw_db)

    rows = []
    for workers in p.seed000_workers:
        row = [str(workers), rate(workers / WORK_S)]
        for mode in MODES:
            s = results[(mode, workers)]
            q = s.claim_s + s.complete_s
            row.append(f"{rate(s.done / p.seed000_seconds)} ({ms(percentile(q, 50))} / {ms(percentile(q, 99))})"
                       + (f", {s.failed} failed to connect" if s.failed else ""))
        rows.append(row)
    series = {"ideal (workers x 10/s)": [(w, w / WORK_S) for w in p.seed000_workers]}
    for mode in MODES:
        series[mode] = [(w, results[(mode, w)].done / p.seed000_seconds) for w in p.seed000_workers]
    chart = ctx.charts / "seed000_sweep.png"
    charts.lines(chart, "Jobs of 100 ms: jobs/s vs workers", "workers", "jobs/s", series, logx=True)
    failed = sum(s.failed for s in results.values())
    notes.append(f"Connection failures over the whole sweep: {failed} (the server allows "
                 f"{srv.setting('max_connections')} connections; seed 000's allowed 100).")
    return Section(
        key="seed000",
        title="9. Seed 000's sweep: 100 ms jobs, 1 to 128 workers",
        method=(
            f"Each worker is a thread that claims one job, sleeps {WORK_S * 1000:.0f} ms and completes it, for "
            f"{p.seed000_seconds:g} s per step; jobs/s = completed / duration. Query times are the claim and "
            "complete calls as the worker sees them (with a pool: including the wait for a connection). "
            "Modes: a connection per worker; a shared psycopg_pool of 20; PgBouncer 1.x in transaction mode "
            "with a pool of 20 (pgq claims lease-only there, `owner => 0`; psycopg `prepare_threshold=None`). "
            "Seed 000's table and queries with direct connections for reference. **One run per step** "
            "(like the seed); the figures are indicative."
        ),
        tables=[Table(caption="jobs/s (p50 / p99 of the claim and complete queries)",
                      headers=["workers", "ideal"] + MODES, rows=rows)],
        notes=notes,
        seed=(
            "Seed 000 (Postgres capped at 1 CPU, direct connections, max_connections 100): 9 jobs/s at 1 worker, "
            "153 at 16, 292 at 32, 376 at 64 (p99 393 ms), 208 at 128 with 29 failing to connect; with a pool "
            "of 20: 652 jobs/s at 128 workers (p99 360 ms)."
        ),
        charts=[chart.name],
        data={"jobs_per_s": {f"{m}|{w}": results[(m, w)].done / p.seed000_seconds
                             for m in MODES for w in p.seed000_workers},
              "median_claim_s": {f"{m}|{w}": median(results[(m, w)].claim_s)
                                 for m in MODES for w in p.seed000_workers}},
    )
