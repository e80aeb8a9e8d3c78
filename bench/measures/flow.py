"""Flow control (design.md#flow-control-without-a-hot-row): what limits cost a claim, and whether a rate holds.

1. pgbench, 10 clients, `q.claim(queue, 10)` + `q.complete_many` on five
   queues side by side in one run (each in its own database, the same backlog
   restored before every run, order alternating between runs): unlimited at
   head, unlimited at head in a database where another queue has a limit (so
   flow control's triggers are on q_data.job: the first limit makes them, revision
   0007), unlimited at pgq@<revision> (PGQ_REVISIONS, today's code), a global
   limit of 50, and 1,000 keys with key_concurrency 1.
2. A rate limit of 1,000 starts/s held for 60 s (quick: 5 s): 10 Python
   clients claim 10 at a time; a claim the limit left empty sleeps for the
   time `pgq.claim_retry_in` says. Started jobs per second, and the most
   starts in any 1 s window (from each claim's own timestamp, lease_until -
   lease), against the limit.
3. A per-key rate (revision 0007): 100 keys x key_concurrency 10, key_rate 10
   per 1 s (at most 1,000 starts/s in all), held for 30 s (quick: 5 s) by the
   same 10 Python clients. Started jobs per second and the fullest 1 s window
   of each key, from every slot stamp a claim committed (a trigger of the
   bench's database records them, so claims whose client never saw the
   reply count too; a stamp is the claim's time, lease_until - lease). And what the
   per-key rate path costs a claim: pgbench, claims of 10, on the same 100
   keys x key_concurrency 10 without a rate and with one that never binds
   (key_rate 10 per 1 ms).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import timedelta
from typing import Any

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
# The per-key rate: KR_KEYS keys, KR_CONCURRENCY running and KR_RATE starts per second each.
KR_KEYS, KR_CONCURRENCY, KR_RATE = 100, 10, 10
KR_SETTINGS = f"key_concurrency => {KR_CONCURRENCY}, key_rate => {KR_RATE}, key_per => '1 second'"
# The same keys without a rate, and with one that never binds: what the per-key rate path costs.
KR_COST_VARIANTS = [
    (f"{KR_KEYS} keys x key_concurrency {KR_CONCURRENCY}", "bench_flow_kc", f"key_concurrency => {KR_CONCURRENCY}"),
    (f"the same + key_rate {KR_RATE} per 1 ms (never binds)", "bench_flow_kr",
     f"key_concurrency => {KR_CONCURRENCY}, key_rate => {KR_RATE}, key_per => '1 millisecond'"),
]
# Every stamp of a per-key rate slot a claim commits (the bench database's own trigger, not pgq's).
STAMPS = """
create table key_rate_stamp (key text, used_at timestamptz);
grant insert on key_rate_stamp to public;
create function key_rate_stamp_log() returns trigger language plpgsql
set search_path = pg_catalog, pg_temp as $$
begin
  insert into public.key_rate_stamp (key, used_at) values (new.key, new.used_at);
  return null;
end $$;
create trigger key_rate_stamp_log after update of used_at on q_data.key_rate_slot
  for each row when (new.used_at is distinct from old.used_at) execute function key_rate_stamp_log();
"""
LEASE = timedelta(minutes=5)

# (label, database, queue settings or None for unlimited, keyed)
# "...armed": the same unlimited queue in a database where another queue has a limit, so flow
# control's triggers are on q_data.job (made with the first limit, revision 0007; before it, always).
ARMED = "select q.configure('elsewhere', concurrency => 1)"
VARIANTS = [
    ("unlimited", "bench_flow_none", None, False),
    ("unlimited, a limit on another queue", "bench_flow_none_armed", None, False),
    ("concurrency 50", "bench_flow_g50", "concurrency => 50", False),
    ("1,000 keys x key_concurrency 1", "bench_flow_k1", "key_concurrency => 1", True),
]


def _fill(conn: psycopg.Connection, n: int, keyed: bool, keys: int = KEYS) -> None:
    qid = databases.queue_id(conn)
    # (pgq@0002 has no concurrency_key column: unkeyed queues leave it out)
    column, key = (", concurrency_key", f", 'k' || (g %% {keys})") if keyed else ("", "")
    with conn.transaction():
        conn.execute("set local pgq.notify = off")
        # Straight into q_data.job (set-up only); the admission trigger still gives
        # keyed jobs their key slot or holds them.
        databases.execute(
            conn,
            f"insert into q_data.job (queue_id, payload, run_at, state{column})"
            f" select %s, jsonb_build_object('n', g), clock_timestamp(), 'w'{key} from generate_series(1, %s) g",
            (qid, n))


def _reset(conn: psycopg.Connection, n: int, keyed: bool, keys: int = KEYS) -> None:
    databases.execute(conn, "delete from q_data.job")
    if databases.execute(conn, "select to_regclass('q_data.queue_slot') is not null").fetchone()[0]:  # not at pgq@0002
        databases.execute(conn, "update q_data.queue_slot set job_id = null")
        databases.execute(conn, "delete from q_data.key_slot")
    if databases.execute(conn, "select to_regclass('q_data.key_rate_slot') is not null").fetchone()[0]:  # from 0007
        # (vacuumed too: every start rewrites a slot row and its used_at index entry, no HOT update)
        databases.execute(conn, "delete from q_data.key_rate_slot")
        databases.execute(conn, "vacuum q_data.key_rate_slot")
    _fill(conn, n, keyed, keys)
    databases.execute(conn, "vacuum (analyze) q_data.job")


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


def _server_time(ctx: Context, dbs: list[tuple[str, str]], runs: int) -> dict[str, list[float]]:
    """CPU_BLOCK's microseconds per job in each (label, database), `runs` times, order alternating."""
    out: dict[str, list[float]] = defaultdict(list)
    for rep in range(runs):
        for label, db in ctx.order(dbs, rep):
            notes: list[str] = []
            with ctx.server.connect(db) as conn:
                conn.add_notice_handler(lambda d, sink=notes: sink.append(d.message_primary or ""))
                conn.execute(CPU_BLOCK)  # warm: the session's first call compiles and plans the functions
                conn.execute(CPU_BLOCK)
            out[label].append([float(n.split()[-1]) for n in notes if n.startswith("pgq-us-per-job")][-1])
    return out


def cpu_per_job(ctx: Context, runs: int) -> dict[str, list[float]]:
    """Microseconds of server time per claimed and completed job on an unlimited queue, head and @revisions."""
    srv = ctx.server
    dbs = [("unlimited", "bench_flow_cpu", None),
           ("unlimited, a limit on another queue", "bench_flow_cpu_armed", None)] + [
        (f"unlimited @{rev}", f"bench_flow_cpu_{rev}", rev) for rev in ctx.revisions]
    for _, db, rev in dbs:
        databases.new_pgq(srv, db, rev)
        with srv.connect(db) as conn:
            conn.execute("select q.configure('bench')")
            if db.endswith("_armed"):
                conn.execute(ARMED)
            _reset(conn, 4000 * runs + 10_000, False)
    out = _server_time(ctx, [(label, db) for label, db, _ in dbs], runs)
    for _, db, _ in dbs:
        srv.drop(db)
    return out


def _drain(ctx: Context, db: str, label: str, backlog: int, keyed: bool, keys: int, batch: int,
           seconds: int) -> tuple[float, float]:
    """One pgbench run of SCRIPT (claims of batch + complete_many) on a restored backlog: (jobs/s, claims/s).

    Jobs done are counted from the rows gone, not transactions x batch: a claim a limit cut short
    returns fewer."""
    with ctx.server.connect(db) as conn:
        _reset(conn, backlog, keyed, keys)
    r = pgbench.run(ctx.server, db, SCRIPT.replace("BATCH", str(batch)), CLIENTS, seconds)
    if r.failed:
        raise RuntimeError(f"{label}: {r.failed} failed transactions")
    with ctx.server.connect(db) as conn:
        left = databases.execute(conn, "select count(*) from q_data.job").fetchone()[0]
    if left == 0:
        raise RuntimeError(f"{label}: the backlog of {backlog:,} ran out; raise it")
    return (backlog - left) / seconds, r.tps


def claims(ctx: Context, backlog: int, seconds: int, reps: int, batch: int) -> dict[str, list[float]]:
    srv = ctx.server
    variants = _variants(ctx)
    for _, db, settings, _, rev in variants:
        databases.new_pgq(srv, db, rev)
        with srv.connect(db) as conn:
            conn.execute("select q.configure('bench')")
            if settings:
                conn.execute(f"select q.configure('bench', {settings})")
            if db.endswith("_armed"):
                conn.execute(ARMED)
    rates: dict[str, list[float]] = defaultdict(list)
    for rep in range(reps):
        for label, db, _, keyed, _ in ctx.order(variants, rep):
            ctx.log(f"flow: run {rep + 1}/{reps}, {label}, claims of {batch}")
            rates[label].append(_drain(ctx, db, label, backlog, keyed, KEYS, batch, seconds)[0])
    for _, db, _, _, _ in variants:
        srv.drop(db)
    return rates


def _claim_clients(srv: Any, db: str, seconds: float, floor: float) -> tuple[list[float], int, list[str]]:
    """CLIENTS threads claim BATCH and complete, for `seconds`; a claim that comes back empty sleeps
    what `pgq.claim_retry_in` says (at least `floor`, at most 50 ms). Returns each claimed job's
    claim time (lease_until - lease, epoch seconds), the number of claims, and the errors."""
    starts: list[float] = []
    errors: list[str] = []
    claims = [0]
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
                        claims[0] += 1
                    if not rows and wait:
                        time.sleep(min(max(float(wait), floor), 0.05))
                except psycopg.Error as exc:
                    with lock:
                        errors.append(f"{exc.sqlstate}: {exc}")

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return starts, claims[0], errors


def held_rate(ctx: Context, seconds: float) -> dict[str, float]:
    """RATE starts per second for `seconds`: started/s, the fullest 1 s window, errors."""
    srv = ctx.server
    db = "bench_flow_rate"
    databases.new_pgq(srv, db)
    with srv.connect(db) as conn:
        conn.execute("select q.configure('bench', rate => %s, per => '1 second')", (RATE,))
        _fill(conn, int(RATE * (seconds + 10)), False)
        databases.execute(conn, "vacuum (analyze) q_data.job")
    starts, _, errors = _claim_clients(srv, db, seconds, 0.0)
    srv.drop(db)
    starts.sort()
    # The window opens with the first start (a burst of up to RATE at once, by design); count the
    # starts in the whole seconds that follow it, up to the last full one of the run.
    window = max(1, int(seconds) - 1)
    counted = sum(1 for s in starts if s < starts[0] + window) if starts else 0
    fullest = most_in_window(starts)
    if errors:
        ctx.log(f"flow: rate clients saw errors, e.g. {errors[0]}")
    return {"started": len(starts), "per_second": counted / window, "window": window,
            "fullest_window": fullest, "errors": len(errors), "error_sample": errors[:3]}


def key_rate_cost(ctx: Context, backlog: int, seconds: int, reps: int,
                  cpu_runs: int) -> tuple[dict[str, list[tuple[float, float]]], dict[str, list[float]]]:
    """pgbench claims of BATCH on KR_KEYS keys, without a per-key rate and with one that never binds.

    Per pgbench run: (jobs/s, claims/s); then server time per job (CPU_BLOCK, one session), cpu_runs each.
    """
    srv = ctx.server
    for _, db, settings in KR_COST_VARIANTS:
        databases.new_pgq(srv, db)
        with srv.connect(db) as conn:
            conn.execute(f"select q.configure('bench', {settings})")
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for rep in range(reps):
        for label, db, _ in ctx.order(KR_COST_VARIANTS, rep):
            ctx.log(f"flow: run {rep + 1}/{reps}, {label}, claims of {BATCH}")
            out[label].append(_drain(ctx, db, label, backlog, True, KR_KEYS, BATCH, seconds))
    for _, db, _ in KR_COST_VARIANTS:
        with srv.connect(db) as conn:
            _reset(conn, 4000 * cpu_runs + 10_000, True, KR_KEYS)
    cpu = _server_time(ctx, [(label, db) for label, db, _ in KR_COST_VARIANTS], cpu_runs)
    for _, db, _ in KR_COST_VARIANTS:
        srv.drop(db)
    return out, cpu


def _quartile(values: list[float]) -> float:
    return sorted(values)[len(values) // 4]


def most_in_window(times: list[float], per: float = 1.0) -> int:
    """The most of ``times`` (seconds) in any window [t, t + per) starting at one of them."""
    times = sorted(times)
    most, j = 0, 0
    for i, t in enumerate(times):
        while t - times[j] >= per:
            j += 1
        most = max(most, i - j + 1)
    return most


def held_key_rate(ctx: Context, seconds: float) -> dict[str, Any]:
    """KR_RATE starts per second for each of KR_KEYS keys for `seconds`: started/s, each key's fullest window."""
    srv = ctx.server
    db = "bench_flow_key_rate"
    databases.new_pgq(srv, db)
    with srv.connect(db) as conn:
        conn.execute(f"select q.configure('bench', {KR_SETTINGS})")
        databases.execute(conn, STAMPS)
        _fill(conn, int(KR_KEYS * KR_RATE * (seconds + 5)), True, KR_KEYS)
        databases.execute(conn, "vacuum (analyze) q_data.job")
    # (at least 5 ms between empty claims, as the worker does: "0" means a free slot another claim holds)
    claimed, claims, errors = _claim_clients(srv, db, seconds, 0.005)
    stamps: dict[str, list[float]] = defaultdict(list)
    with srv.connect(db) as conn:
        for key, at in conn.execute("select key, extract(epoch from used_at)::float8 from key_rate_stamp"):
            stamps[key].append(at)
    srv.drop(db)
    starts = sorted(t for ts in stamps.values() for t in ts)
    # As for the queue's rate: the first second is a burst (every key's KR_RATE at once, by design);
    # count the starts in the whole seconds that follow the first, up to the last full one of the run.
    window = max(1, int(seconds) - 1)
    counted = sum(1 for s in starts if s < starts[0] + window) if starts else 0
    fullest = {key: most_in_window(ts) for key, ts in stamps.items()}
    if errors:
        ctx.log(f"flow: key-rate clients saw errors, e.g. {errors[0]}")
    return {"started": len(starts), "claimed": len(claimed), "claims": claims, "keys": len(stamps),
            "per_second": counted / window, "window": window, "seconds": seconds,
            "fullest_window": max(fullest.values(), default=0),
            "fullest_least": min(fullest.values(), default=0),
            "key_most": max(map(len, stamps.values()), default=0),
            "key_least": min(map(len, stamps.values()), default=0),
            "errors": len(errors), "error_sample": errors[:3]}


def run(ctx: Context) -> Section:
    quick = ctx.profile.name == "quick"
    # Enough that no variant drains it (unlimited claims of 10 ran 25,000+ jobs/s on a quiet 2-core box).
    backlog = 100_000 if quick else 1_000_000
    seconds = 1 if quick else 10
    reps = 1 if quick else 3
    by_batch = {b: claims(ctx, backlog, seconds, reps, b) for b in BATCHES}
    held = held_rate(ctx, 5.0 if quick else 60.0)
    key_held = held_key_rate(ctx, 5.0 if quick else 30.0)
    # (keyed rows are slow to restore: every one goes through admission; ~8,000 jobs/s at most here)
    kr_backlog = 30_000 if quick else 200_000
    kr_cost, kr_cpu = key_rate_cost(ctx, kr_backlog, seconds, reps, 3 if quick else 9)
    kr_med = {k: (median([j for j, _ in v]), median([c for _, c in v])) for k, v in kr_cost.items()}
    kr_base, kr_rated = (kr_med[label] for label, _, _ in KR_COST_VARIANTS)
    kr_ratio = ratio(kr_rated[0], kr_base[0])
    kr_all = KR_KEYS * KR_RATE
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
            f"{'5' if quick else '60'} s; a claim the limit left empty sleeps `pgq.claim_retry_in` (at most 50 ms). "
            f"Per-key rate: the same clients, {KR_KEYS} keys, `{KR_SETTINGS}`, {key_held['seconds']:.0f} s "
            "(an empty claim sleeps `pgq.claim_retry_in`, at least 5 ms and at most 50 ms); starts and windows "
            "from every key slot stamp a claim committed (a trigger of the bench's database logs them); its cost: "
            f"pgbench as above, claims of {BATCH}, the same keys with no rate and with one that never binds, "
            f"median of {reps} (order alternating), each from a backlog of "
            f"{kr_backlog:,}."
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
            Table(caption=f"per-key rate: {KR_KEYS} keys x key_concurrency {KR_CONCURRENCY}, key_rate {KR_RATE} "
                          f"per 1 s (at most {kr_all:,} starts/s in all)",
                  headers=["figure", "value"], rows=[
                      ["jobs started (slot stamps)", f"{key_held['started']:,}"],
                      ["jobs the clients claimed", f"{key_held['claimed']:,}"],
                      ["claims (empty ones too)", f"{key_held['claims']:,}"],
                      [f"started per second over the first {key_held['window']} s", f"{key_held['per_second']:.1f}"],
                      ["keys that started jobs", f"{key_held['keys']}"],
                      ["jobs started per key (least / most)", f"{key_held['key_least']:,} / {key_held['key_most']:,}"],
                      ["most starts of one key in any 1 s window (highest key / lowest key)",
                       f"{key_held['fullest_window']} / {key_held['fullest_least']}"],
                      ["errors (serialization failures or other)", str(key_held["errors"])],
                  ]),
            Table(caption=f"what the per-key rate path costs: pgbench, {CLIENTS} clients, claims of {BATCH}; server "
                          f"time per job (claim 10 + complete_many, one session, lower quartile of "
                          f"{len(next(iter(kr_cpu.values())))} runs of 2,000 jobs)",
                  headers=["queue", "jobs/s", "claims/s", "vs no rate", "server us/job"],
                  rows=[[label, rate(kr_med[label][0]), rate(kr_med[label][1]),
                         f"{ratio(kr_med[label][0], kr_base[0]):.2f}", f"{_quartile(kr_cpu[label]):.1f}"]
                        for label, _, _ in KR_COST_VARIANTS]),
        ],
    )
    for rev in ctx.revisions:
        old = med.get(f"unlimited @{rev}")
        if old:
            sec.targets.append(Target(f"unlimited queue within 3% of pgq@{rev} (pgbench jobs/s)",
                                      ratio(base, old) >= 0.97, f"{ratio(base, old):.3f}x"))
            armed = med["unlimited, a limit on another queue"]
            sec.targets.append(Target(
                f"unlimited queue, a limit on another queue, within 3% of pgq@{rev} (pgbench jobs/s)",
                ratio(armed, old) >= 0.97, f"{ratio(armed, old):.3f}x"))
        old_cpu = cpu.get(f"unlimited @{rev}")
        if old_cpu:
            head_cpu = sorted(cpu["unlimited"])[len(cpu["unlimited"]) // 4]
            rev_cpu = sorted(old_cpu)[len(old_cpu) // 4]
            sec.targets.append(Target(f"unlimited queue within 3% of pgq@{rev} (server time per job, lower quartile)",
                                      head_cpu <= rev_cpu * 1.03, f"{head_cpu:.2f} vs {rev_cpu:.2f} us"))
            armed_cpu = _quartile(cpu["unlimited, a limit on another queue"])
            sec.targets.append(Target(
                f"unlimited queue, a limit on another queue, within 3% of pgq@{rev}"
                " (server time per job, lower quartile)",
                armed_cpu <= rev_cpu * 1.03, f"{armed_cpu:.2f} vs {rev_cpu:.2f} us"))
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
        Target(f"per-key rate {KR_RATE}/s x {KR_KEYS} keys: started/s within 1% of {kr_all:,}/s",
               abs(key_held["per_second"] / kr_all - 1) <= 0.01, f"{key_held['per_second']:.1f}/s"),
        Target(f"per-key rate {KR_RATE}/s: never more than {KR_RATE} starts of a key in any 1 s window",
               key_held["fullest_window"] <= KR_RATE, f"at most {key_held['fullest_window']}"),
        Target("per-key rate: 0 serialization failures", key_held["errors"] == 0, f"{key_held['errors']} errors"),
        Target(f"a per-key rate that never binds >= 0.5x key_concurrency {KR_CONCURRENCY} alone (jobs/s)",
               kr_ratio >= 0.5, f"{kr_ratio:.2f}x"),
    ]
    sec.data = {"rates": {str(b): r for b, r in by_batch.items()}, "held": held, "cpu": cpu,
                "key_rate": key_held, "key_rate_cost": kr_cost, "key_rate_cpu": kr_cpu}
    return sec
