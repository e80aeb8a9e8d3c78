"""Flow control (issue 11): what limits cost a claim, and whether a rate holds.

1. pgbench, 10 clients, `q.claim(queue, 10)` + `q.complete_many` on four
   queues side by side in one run (each in its own database, the same backlog
   restored before every run, order alternating between runs): unlimited at
   head, unlimited at pgq@<revision> (PGQ_REVISIONS, today's code), a global
   limit of 50, and 1,000 keys with key_concurrency 1.
2. A rate limit of 1,000 starts/s held for 60 s (quick: 5 s): 10 Python
   clients claim 10 at a time; a claim the limit left empty sleeps for the
   time `pgq.claim_retry_in` says. Started jobs per second, and the most
   starts in any 1 s window (from each claim's own timestamp, lease_until -
   lease), against the limit.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import timedelta

import psycopg

from .. import databases, pgbench
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, rate, ratio

CLIENTS = 10
# Claim sizes: 5 x 10 clients = 50 jobs wanted in flight, the global limit of 50 just reached (what
# enforcing it costs); 10 x 10 = 100 wanted, so the limit binds and half the claims come back short.
BATCHES = (5, 10)
BATCH = 10  # the rate measurement's claim size
SCRIPT = (
    "select coalesce({q}(array_agg(id)::text), {q}('{}')) as ids,"
    " coalesce({q}(array_agg(token)::text), {q}('{}')) as tokens from q.claim('bench', BATCH) \\gset\n"
    "select count(*) from q.complete_many(:ids::bigint[], :tokens::uuid[]);\n"
)
KEYS = 1000
RATE = 1000
LEASE = timedelta(minutes=5)

# (label, database, queue settings or None for unlimited, keyed)
VARIANTS = [
    ("unlimited", "bench_flow_none", None, False),
    ("concurrency 50", "bench_flow_g50", "concurrency => 50", False),
    ("1,000 keys x key_concurrency 1", "bench_flow_k1", "key_concurrency => 1", True),
]


def _fill(conn: psycopg.Connection, n: int, keyed: bool) -> None:
    qid = databases.queue_id(conn)
    # (pgq@0002 has no concurrency_key column: unkeyed queues leave it out)
    column, key = (", concurrency_key", f", 'k' || (g %% {KEYS})") if keyed else ("", "")
    with conn.transaction():
        conn.execute("set local pgq.notify = off")
        # Straight into q.job (set-up only); the admission trigger still gives
        # keyed jobs their key slot or holds them.
        conn.execute(
            f"insert into q.job (queue_id, payload, run_at, state{column})"
            f" select %s, jsonb_build_object('n', g), clock_timestamp(), 'w'{key} from generate_series(1, %s) g",
            (qid, n))


def _reset(conn: psycopg.Connection, n: int, keyed: bool) -> None:
    conn.execute("delete from q.job")
    if conn.execute("select to_regclass('q.queue_slot') is not null").fetchone()[0]:  # not at pgq@0002
        conn.execute("update q.queue_slot set job_id = null")
        conn.execute("delete from q.key_slot")
    _fill(conn, n, keyed)
    conn.execute("vacuum (analyze) q.job")


def _variants(ctx: Context) -> list[tuple[str, str, str | None, bool, str | None]]:
    out = [(label, db, settings, keyed, None) for label, db, settings, keyed in VARIANTS]
    out[1:1] = [(f"unlimited @{rev}", f"bench_flow_none_{rev}", None, False, rev) for rev in ctx.revisions]
    return out


# Server time per job, claim 10 + complete_many, in one session with no commit to wait for: what the
# pgbench figures (bound by WAL flushes on a loaded box, +-15 % from run to run) cannot resolve.
CPU_BLOCK = """
do $$
declare t0 timestamptz; ids bigint[]; toks uuid[];
begin
  t0 := clock_timestamp();
  for i in 1..200 loop
    select array_agg(id), array_agg(token) into ids, toks from q.claim('bench', 10, owner => 0);
    perform count(*) from q.complete_many(ids, toks);
  end loop;
  raise notice 'pgq-us-per-job %', extract(epoch from clock_timestamp() - t0) * 1e6 / 2000;
end $$
"""


def cpu_per_job(ctx: Context, runs: int) -> dict[str, list[float]]:
    """Microseconds of server time per claimed and completed job on an unlimited queue, head and @revisions."""
    srv = ctx.server
    dbs = [("unlimited", "bench_flow_cpu", None)] + [
        (f"unlimited @{rev}", f"bench_flow_cpu_{rev}", rev) for rev in ctx.revisions]
    for _, db, rev in dbs:
        databases.new_pgq(srv, db, rev)
        with srv.connect(db) as conn:
            conn.execute("select q.configure('bench')")
            _reset(conn, 4000 * runs + 10_000, False)
    out: dict[str, list[float]] = defaultdict(list)
    for rep in range(runs):
        for label, db, _ in ctx.order(dbs, rep):
            notes: list[str] = []
            with srv.connect(db) as conn:
                conn.add_notice_handler(lambda d, sink=notes: sink.append(d.message_primary or ""))
                conn.execute(CPU_BLOCK)  # warm: the session's first call compiles and plans the functions
                conn.execute(CPU_BLOCK)
            timed = [float(n.split()[-1]) for n in notes if n.startswith("pgq-us-per-job")]
            out[label].append(timed[-1])
    for _, db, _ in dbs:
        srv.drop(db)
    return out


def claims(ctx: Context, backlog: int, seconds: int, reps: int, batch: int) -> dict[str, list[float]]:
    srv = ctx.server
    variants = _variants(ctx)
    for _, db, settings, _, rev in variants:
        databases.new_pgq(srv, db, rev)
        with srv.connect(db) as conn:
            conn.execute("select q.configure('bench')")
            if settings:
                conn.execute(f"select q.configure('bench', {settings})")
    rates: dict[str, list[float]] = defaultdict(list)
    for rep in range(reps):
        for label, db, _, keyed, _ in ctx.order(variants, rep):
            with srv.connect(db) as conn:
                _reset(conn, backlog, keyed)
            ctx.log(f"flow: run {rep + 1}/{reps}, {label}, claims of {batch}")
            r = pgbench.run(srv, db, SCRIPT.replace("BATCH", str(batch)), CLIENTS, seconds)
            if r.failed:
                raise RuntimeError(f"{label}: {r.failed} failed transactions")
            # Jobs done, not transactions x 10: a claim a limit cut short returns fewer.
            with srv.connect(db) as conn:
                left = conn.execute("select count(*) from q.job").fetchone()[0]
            if left == 0:
                raise RuntimeError(f"{label}: the backlog of {backlog:,} ran out; raise it")
            rates[label].append((backlog - left) / seconds)
    for _, db, _, _, _ in variants:
        srv.drop(db)
    return rates


def held_rate(ctx: Context, seconds: float) -> dict[str, float]:
    """RATE starts per second for `seconds`: started/s, the fullest 1 s window, errors."""
    srv = ctx.server
    db = "bench_flow_rate"
    databases.new_pgq(srv, db)
    with srv.connect(db) as conn:
        conn.execute("select q.configure('bench', rate => %s, per => '1 second')", (RATE,))
        _fill(conn, int(RATE * (seconds + 10)), False)
        conn.execute("vacuum (analyze) q.job")
    starts: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client() -> None:
        with srv.connect(db) as conn:
            while time.monotonic() < stop:
                try:
                    with conn.transaction():
                        rows = conn.execute("select id, token, lease_until from q.claim('bench', %s, lease => %s)",
                                            (BATCH, LEASE)).fetchall()
                        wait = conn.execute("select current_setting('pgq.claim_retry_in', true)").fetchone()[0]
                    if rows:
                        conn.execute("select count(*) from q.complete_many(%s, %s)",
                                     ([r[0] for r in rows], [r[1] for r in rows]))
                        with lock:
                            starts.extend((r[2] - LEASE).timestamp() for r in rows)
                    elif wait:
                        time.sleep(min(max(float(wait), 0.0), 0.05))
                except psycopg.Error as exc:
                    with lock:
                        errors.append(f"{exc.sqlstate}: {exc}")

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    srv.drop(db)
    starts.sort()
    # The window opens with the first start (a burst of up to RATE at once, by design); count the
    # starts in the whole seconds that follow it, up to the last full one of the run.
    window = max(1, int(seconds) - 1)
    counted = sum(1 for s in starts if s < starts[0] + window) if starts else 0
    fullest, j = 0, 0
    for i, t in enumerate(starts):
        while t - starts[j] >= 1.0:
            j += 1
        fullest = max(fullest, i - j + 1)
    if errors:
        ctx.log(f"flow: rate clients saw errors, e.g. {errors[0]}")
    return {"started": len(starts), "per_second": counted / window, "window": window,
            "fullest_window": fullest, "errors": len(errors), "error_sample": errors[:3]}


def run(ctx: Context) -> Section:
    quick = ctx.profile.name == "quick"
    # Enough that no variant drains it (unlimited claims of 10 ran 25,000+ jobs/s on a quiet 2-core box).
    backlog = 100_000 if quick else 1_000_000
    seconds = 1 if quick else 10
    reps = 1 if quick else 3
    by_batch = {b: claims(ctx, backlog, seconds, reps, b) for b in BATCHES}
    held = held_rate(ctx, 5.0 if quick else 60.0)
    cpu = cpu_per_job(ctx, 3 if quick else 15)
    meds = {b: {k: median(v) for k, v in r.items()} for b, r in by_batch.items()}
    med = meds[BATCHES[0]]
    base = med["unlimited"]
    tables = [Table(caption=f"jobs/s claimed and completed, {CLIENTS} clients, claims of {b}"
                            + (" (the limit of 50 just reached)" if b * CLIENTS == 50 else " (the limit of 50 binds)"),
                    headers=["queue", "jobs/s", "vs unlimited"],
                    rows=[[label, rate(v), f"{ratio(v, m['unlimited']):.2f}"] for label, v in m.items()])
              for b, m in meds.items()]
    sec = Section(
        key="flow",
        title="Flow control (issue 11)",
        method=(
            f"pgbench `-c {CLIENTS} -j {CLIENTS} -T {seconds}`, script `q.claim('bench', N)` + "
            f"`q.complete_many`, N = {' and '.join(map(str, BATCHES))}; jobs/s counted from the rows gone; "
            f"each queue in its own database with {backlog:,} waiting jobs restored and "
            f"vacuumed before every run; median of {reps} (order alternating). Rate: {CLIENTS} Python threads, "
            f"claim {BATCH} + complete, `rate => {RATE}, per => '1 second'`, "
            f"{'5' if quick else '60'} s; a claim the limit left empty sleeps `pgq.claim_retry_in` (at most 50 ms)."
        ),
        tables=[
            *tables,
            Table(caption="server time per job on an unlimited queue (claim 10 + complete_many, one session, "
                          f"no commit wait; {len(next(iter(cpu.values())))} runs of 2,000 jobs, order alternating)",
                  headers=["code", "min us/job", "lower quartile", "median"],
                  rows=[[label, f"{min(v):.2f}", f"{sorted(v)[len(v) // 4]:.2f}", f"{median(v):.2f}"]
                        for label, v in cpu.items()]),
            Table(caption=f"rate limit {RATE}/s", headers=["figure", "value"], rows=[
                ["jobs started", f"{held['started']:,}"],
                [f"started per second over the first {held['window']} s", f"{held['per_second']:.1f}"],
                ["most starts in any 1 s window", f"{held['fullest_window']:,}"],
                ["errors (serialization failures or other)", str(held["errors"])],
            ]),
        ],
    )
    for rev in ctx.revisions:
        old = med.get(f"unlimited @{rev}")
        if old:
            sec.targets.append(Target(f"unlimited queue within 3% of pgq@{rev} (pgbench jobs/s)",
                                      ratio(base, old) >= 0.97, f"{ratio(base, old):.3f}x"))
        old_cpu = cpu.get(f"unlimited @{rev}")
        if old_cpu:
            head_cpu = sorted(cpu["unlimited"])[len(cpu["unlimited"]) // 4]
            rev_cpu = sorted(old_cpu)[len(old_cpu) // 4]
            sec.targets.append(Target(f"unlimited queue within 3% of pgq@{rev} (server time per job, lower quartile)",
                                      head_cpu <= rev_cpu * 1.03, f"{head_cpu:.2f} vs {rev_cpu:.2f} us"))
    sec.targets += [
        Target(f"concurrency 50 with 10 claimers (claims of {BATCHES[0]}) >= 0.7x unlimited",
               ratio(med["concurrency 50"], base) >= 0.7,
               f"{ratio(med['concurrency 50'], base):.2f}x"),
        Target("1,000 keys x key_concurrency 1 >= 0.5x unlimited",
               ratio(med["1,000 keys x key_concurrency 1"], base) >= 0.5,
               f"{ratio(med['1,000 keys x key_concurrency 1'], base):.2f}x"),
        Target(f"rate {RATE}/s: started/s within 1% of the limit", abs(held["per_second"] / RATE - 1) <= 0.01,
               f"{held['per_second']:.1f}/s"),
        Target(f"rate {RATE}/s: never more than {RATE} starts in any 1 s window", held["fullest_window"] <= RATE,
               f"at most {held['fullest_window']}"),
        Target("0 serialization failures", held["errors"] == 0, f"{held['errors']} errors"),
    ]
    sec.data = {"rates": {str(b): r for b, r in by_batch.items()}, "held": held, "cpu": cpu}
    return sec
