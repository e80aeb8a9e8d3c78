"""Hours, not a minute (`make bench-sustained`): a sustained run at a fixed 70% of measured capacity.

The workload is a queue in steady state: producer threads enqueue one job at a
time (`pgq_client.enqueue`, each its own commit) at a fixed rate, and a
`pgq_client.Worker(concurrency=10)` with its defaults runs them (no-op
handler that records the pickup latency: now minus the time written into the
payload just before the enqueue).

1. Capacity: the same producers unthrottled and the same Worker for a short
   run; capacity = jobs completed per second. The sustained rate is 70% of it.
2. Two runs of `--minutes` each (default 30), each on a fresh database, one
   after the other on the same cluster: the **stock server**
   (autovacuum_naptime 1min; pgq's per-table autovacuum settings from the
   migrations still apply) and **pgq's recommended settings**
   (sql/server_settings.sql: naptime 5s).
3. Every interval: jobs done, pickup p50/p99, and for q_data.job its live and dead
   tuples, autovacuum/vacuum/analyze counts (pg_stat_user_tables), heap and
   index sizes, and per index the tuples read per index scan
   (pg_stat_user_indexes: a claim that walks dead entries reads more).
   With `--diagnose` (PGQ_BENCH_DIAGNOSE=1) also the entries of each index
   counted page by page (pageinspect), against the rows they can point to:
   the index entries that only point at dead row versions, which is why a
   claim slows down between vacuums.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from typing import Any

import pgq_client
import psycopg

from .. import charts, databases
from ..contenders.base import paced, payload
from ..context import Context
from ..model import Section, Table, Target
from ..stats import ms, percentile, rate

QUEUE = databases.QUEUE
PRODUCERS = 2
CONCURRENCY = 10
LOAD = 0.7
RUNS = [
    # (key, label, autovacuum_naptime)
    ("stock", "stock server (autovacuum_naptime 1min)", "1min"),
    ("recommended", "pgq's recommended settings (naptime 5s)", "5s"),
]
INDEXES = ("job_claim_idx", "job_running_idx", "job_scheduled_idx", "job_dedup_key_idx")

COUNTERS = """
select n_live_tup, n_dead_tup, autovacuum_count, vacuum_count, autoanalyze_count,
       pg_relation_size('q_data.job'), pg_total_relation_size('q_data.job'), n_tup_hot_upd, n_tup_upd
  from pg_stat_user_tables where relid = 'q_data.job'::regclass
"""
INDEX_COUNTERS = """
select indexrelname, pg_relation_size(indexrelid), idx_scan, idx_tup_read
  from pg_stat_user_indexes where relid = 'q_data.job'::regclass
"""
# Entries on the leaf pages of one btree index (pageinspect; superuser).
LEAF_ENTRIES = """
select coalesce(sum(s.live_items), 0), coalesce(sum(s.dead_items), 0)
  from generate_series(1::bigint, greatest(pg_relation_size(%(idx)s::text::regclass) / 8192 - 1, 0)) b,
       lateral bt_page_stats(%(idx)s::text, b) s
 where s.type = 'l'
"""


class Recorder:
    """Pickup latencies and completions, read and reset by the sampler each interval."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.done = 0

    def handler(self, p: dict[str, Any]) -> None:
        lat = time.time() - p["t"]
        with self.lock:
            self.latencies.append(lat)
            self.done += 1

    def take(self) -> tuple[int, list[float]]:
        with self.lock:
            out = (self.done, self.latencies)
            self.done, self.latencies = 0, []
        return out


def _produce(dsn: str, per_second: float | None, seconds: float, stop: threading.Event) -> None:
    """One producer connection: paced at per_second, or as fast as it can (None), until stop or seconds."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        if per_second is None:
            end = time.monotonic() + seconds
            i = 0
            while not stop.is_set() and time.monotonic() < end:
                pgq_client.enqueue(conn, QUEUE, payload(i, time.time()))
                i += 1
            return

        def send(i: int, t: float) -> None:
            if stop.is_set():
                raise StopIteration
            pgq_client.enqueue(conn, QUEUE, payload(i, t))

        try:
            paced(int(per_second * seconds), per_second, send)
        except StopIteration:
            pass


def _load(dsn: str, rec: Recorder, per_second: float | None, seconds: float,
          sample: Any = None, every: float = 0.0) -> None:
    """Producers + one Worker for `seconds`; sample() every `every` seconds meanwhile."""
    stop = threading.Event()
    worker = pgq_client.Worker(rec.handler, QUEUE, database_url=dsn, concurrency=CONCURRENCY).start()
    time.sleep(0.5)
    rec.take()
    each = None if per_second is None else per_second / PRODUCERS
    threads = [threading.Thread(target=_produce, args=(dsn, each, seconds, stop), daemon=True)
               for _ in range(PRODUCERS)]
    for t in threads:
        t.start()
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < seconds:
            if sample is None:
                time.sleep(min(1.0, seconds))
                continue
            time.sleep(max(0.0, every - ((time.monotonic() - t0) % every)))
            sample(time.monotonic() - t0)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
        worker.stop()
        worker.join(30)


def capacity(ctx: Context, dsn: str) -> float:
    rec = Recorder()
    seconds = ctx.profile.sustained_long_capacity_s
    _load(dsn, rec, None, seconds)
    done, _ = rec.take()
    return done / seconds


def _snapshot(conn: psycopg.Connection[Any], diagnose: bool) -> dict[str, Any]:
    r = databases.execute(conn, COUNTERS).fetchone()
    snap: dict[str, Any] = dict(zip(
        ["live", "dead", "autovacuums", "vacuums", "autoanalyzes", "heap_bytes", "total_bytes", "hot_upd", "upd"],
        r, strict=True))
    snap["indexes"] = {name: {"bytes": size, "scans": scans, "tup_read": read}
                       for name, size, scans, read in databases.execute(conn, INDEX_COUNTERS)}
    waiting, running = databases.execute(
        conn,
        "select count(*) filter (where state = 'w'), count(*) filter (where state = 'r') from q_data.job").fetchone()
    snap["waiting"], snap["running"] = waiting, running
    if diagnose:
        for name in snap["indexes"]:
            live, dead = conn.execute(LEAF_ENTRIES, {"idx": f"{databases.table_schema(conn)}.{name}"}).fetchone()
            snap["indexes"][name]["entries"] = int(live)
            snap["indexes"][name]["killed"] = int(dead)
    return snap


def one_run(ctx: Context, key: str, naptime: str, per_second: float, diagnose: bool) -> list[dict[str, Any]]:
    srv, p = ctx.server, ctx.profile
    db = f"bench_sustained_{key}"
    dsn = databases.new_pgq(srv, db)
    srv.set_naptime(naptime)
    samples: list[dict[str, Any]] = []
    rec = Recorder()
    with srv.connect(db) as conn:
        if diagnose:
            conn.execute("create extension if not exists pageinspect")
        prev = _snapshot(conn, diagnose)

        def sample(at: float) -> None:
            nonlocal prev
            done, lat = rec.take()
            snap = _snapshot(conn, diagnose)
            row: dict[str, Any] = {"t": at, "done": done, "lat": lat, **snap}
            row["per_s"] = done / p.sustained_long_interval_s
            row["p50"] = percentile(lat, 50) if lat else float("nan")
            row["p99"] = percentile(lat, 99) if lat else float("nan")
            for name, ix in snap["indexes"].items():
                d_scans = ix["scans"] - prev["indexes"][name]["scans"]
                d_read = ix["tup_read"] - prev["indexes"][name]["tup_read"]
                ix["read_per_scan"] = d_read / d_scans if d_scans else 0.0
            prev = snap
            del row["lat"]
            row["p_all"] = lat  # kept for the whole-run percentiles, dropped before saving
            samples.append(row)
            ctx.log(f"sustained_long {key}: {at:5.0f} s {row['per_s']:7.0f}/s p99 {row['p99'] * 1000:6.1f} ms "
                    f"dead {snap['dead']:>7} q_data.job {snap['total_bytes'] / 1e6:6.1f} MB av {snap['autovacuums']}")

        _load(dsn, rec, per_second, p.sustained_long_minutes * 60, sample, p.sustained_long_interval_s)
    srv.set_naptime("1min")
    srv.drop(db)
    return samples


def run(ctx: Context) -> Section:
    p, srv = ctx.profile, ctx.server
    diagnose = os.environ.get("PGQ_BENCH_DIAGNOSE", "") not in ("", "0") and srv.own
    cap_db = "bench_sustained_capacity"
    dsn = databases.new_pgq(srv, cap_db)
    cap = capacity(ctx, dsn)
    srv.drop(cap_db)
    target_rate = LOAD * cap
    ctx.log(f"sustained_long: capacity {cap:.0f} jobs/s, running at {target_rate:.0f}/s, "
            f"{p.sustained_long_minutes:g} min per configuration")
    runs: dict[str, list[dict[str, Any]]] = {}
    for key, _label, naptime in RUNS:
        runs[key] = one_run(ctx, key, naptime, target_rate, diagnose)
    return report(ctx, runs, cap, target_rate, diagnose)


def _first_minute(samples: list[dict[str, Any]]) -> list[float]:
    first = [x for s in samples if s["t"] <= 60.5 for x in s["p_all"]]
    return first or (samples[0]["p_all"] if samples else [])


def report(ctx: Context, runs: dict[str, list[dict[str, Any]]], cap: float, target_rate: float,
           diagnose: bool) -> Section:
    p = ctx.profile
    labels = {k: label for k, label, _ in RUNS}
    tables: list[Table] = []
    targets: list[Target] = []
    summary_rows = []
    for key, samples in runs.items():
        if not samples:
            continue
        stride = max(1, len(samples) // 15)
        headers = ["t", "jobs/s", "pickup p50", "pickup p99", "dead tuples", "q_data.job heap", "claim idx",
                   "running idx", "autovacuums", "claim idx tuples read / scan"]
        if diagnose:
            headers += ["claim idx entries / waiting", "running idx entries / running"]
        rows = []
        for s in samples[stride - 1::stride] if stride > 1 else samples:
            ix = s["indexes"]
            row = [f"{s['t']:.0f} s", rate(s["per_s"]), ms(s["p50"]), ms(s["p99"]),
                   f"{s['dead']:,}", f"{s['heap_bytes'] / 1e6:.1f} MB",
                   f"{ix['job_claim_idx']['bytes'] / 1e6:.1f} MB", f"{ix['job_running_idx']['bytes'] / 1e6:.1f} MB",
                   str(s["autovacuums"]), f"{ix['job_claim_idx']['read_per_scan']:.1f}"]
            if diagnose:
                row += [f"{ix['job_claim_idx'].get('entries', 0):,} / {s['waiting']:,}",
                        f"{ix['job_running_idx'].get('entries', 0):,} / {s['running']:,}"]
            rows.append(row)
        tables.append(Table(caption=f"{labels[key]}: every {stride * p.sustained_long_interval_s:g} s "
                                    f"(sampled every {p.sustained_long_interval_s:g} s)",
                            headers=headers, rows=rows))
        first = _first_minute(samples)
        p99_first = percentile(first, 99) if first else float("nan")
        worst = max((s for s in samples if s["t"] > 60.5 and s["p_all"]), key=lambda s: s["p99"], default=None)
        worst_p99 = worst["p99"] if worst else p99_first
        third = max(1, len(samples) // 3)
        late = samples[-third:]
        growth = late[-1]["total_bytes"] / late[0]["total_bytes"] if late[0]["total_bytes"] else float("nan")
        throughput = statistics.median(s["per_s"] for s in samples)
        summary_rows.append([labels[key], rate(throughput), ms(p99_first), ms(worst_p99),
                             f"{max(s['dead'] for s in samples):,}",
                             f"{samples[-1]['total_bytes'] / 1e6:.1f} MB", f"{growth:.2f}",
                             str(samples[-1]["autovacuums"])])
        targets.append(Target(
            name=f"sustained, {labels[key]}: pickup p99 stays ≤ 2x its first-minute value",
            holds=worst_p99 <= 2 * p99_first,
            detail=f"worst interval after the first minute {ms(worst_p99)} vs first minute {ms(p99_first)}"))
        targets.append(Target(
            name=f"sustained, {labels[key]}: tables stop growing (last third grows < 10%)",
            holds=growth < 1.10,
            detail=f"q_data.job with indexes x{growth:.2f} over the last third, "
                   f"{samples[-1]['total_bytes'] / 1e6:.1f} MB at the end"))
    tables.insert(0, Table(
        caption=f"summary: {rate(target_rate)} jobs/s offered (70% of the measured capacity, {rate(cap)} jobs/s), "
                f"{p.sustained_long_minutes:g} min per configuration",
        headers=["configuration", "median jobs/s", "pickup p99, first minute", "worst interval p99 after it",
                 "most dead tuples", "q_data.job + indexes at the end", "growth over the last third",
                 "autovacuums"],
        rows=summary_rows))
    c1 = ctx.charts / "sustained_long_latency.png"
    charts.lines(c1, "Sustained run: pickup p99 (ms) per interval", "seconds", "ms",
                 {f"p99, {labels[k]}": [(s["t"], s["p99"] * 1000) for s in v if s["p_all"]] for k, v in runs.items()}
                 | {f"jobs/s ÷ 100, {labels[k]}": [(s["t"], s["per_s"] / 100) for s in v] for k, v in runs.items()})
    c2 = ctx.charts / "sustained_long_tables.png"
    charts.lines(c2, "Sustained run: dead tuples (thousands) and q_data.job + indexes (MB)", "seconds", "",
                 {f"dead tuples (k), {labels[k]}": [(s["t"], s["dead"] / 1000) for s in v] for k, v in runs.items()}
                 | {f"MB, {labels[k]}": [(s["t"], s["total_bytes"] / 1e6) for s in v] for k, v in runs.items()})
    for v in runs.values():
        for s in v:
            s.pop("p_all", None)
    return Section(
        key="sustained_long",
        title="Hours, not a minute: sustained run at 70% of capacity",
        method=" ".join((__doc__ or "").split("\n\n", 1)[1].split()) + (
            " Diagnosis (pageinspect) was on in this run." if diagnose else
            " Diagnosis (pageinspect) was off: `make bench-sustained PGQ_BENCH_DIAGNOSE=1` turns it on."),
        tables=tables,
        targets=targets,
        charts=[c1.name, c2.name],
        data={"capacity": cap, "rate": target_rate, "runs": runs},
    )
