"""The claim path, profiled (`make bench-profile`): where q.claim's time goes against the raw UPDATE
of design.md#the-claim-rate-article.

Runs on the harness's own cluster only (it restarts it with
shared_preload_libraries = 'pg_stat_statements,auto_explain' and restores the
setting afterwards). Every figure is per call with synchronous_commit = off
(no WAL flush wait: what is left is the server's work plus one round trip on
the Unix socket), one client, on a backlog restored and vacuumed before each run.

1. Per-call cost (pgbench, median of the profile's runs): the raw claim,
   q.claim, its UPDATE inline, and measured alternatives written as ad-hoc SQL
   functions in the bench database (bench/sql/profile_alternatives.sql:
   narrower RETURNING, only the state written, a HOT-friendly claim on a copy
   of q_data.job, finishing by DELETE of the row found by ctid, complete + claim
   in one statement), with pg_stat_statements' n_tup_hot_upd where it matters.
2. pg_stat_statements with track = all: q.claim and every statement it runs
   inside, mean time per call.
3. auto_explain (log_analyze, log_timing, log_nested_statements, JSON plans
   sent to the client as NOTICEs): per plan node, inclusive and exclusive time
   of the UPDATE inside q.claim and of the raw UPDATE.
4. perf (software cpu-clock samples with call graphs on the backend, since
   this VM has no hardware counters; symbols from the postgres binary's
   dynamic symbol table, as Debian's -dbgsym packages need the debug archive):
   the hottest functions of each, and the share spent in plpgsql.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import psycopg

from .. import databases, pgbench
from ..cluster import ROOT
from ..context import Context
from ..model import Section, Table

SQL = Path(__file__).resolve().parents[1] / "sql"
PGQ, RAW = "bench_profile_pgq", "bench_profile_raw"
ASYNC = "-c synchronous_commit=off"
PRELOAD = "pg_stat_statements,auto_explain"
ZERO_UUID = "00000000-0000-0000-0000-000000000000"

# (label, database, script, jobs per transaction, reset)
CASES: list[tuple[str, str, str, int, str]] = [
    ("raw claim (seed 001's UPDATE)", RAW, (SQL / "pgbench" / "raw_claim.sql").read_text(), 1, "raw"),
    ("q.claim('bench', 1)", PGQ, "select * from q.claim('bench', 1);", 1, "pgq"),
    ("q.claim's UPDATE inline", PGQ, (SQL / "pgbench" / "diag_pgq_claim_inline.sql").read_text(), 1, "pgq"),
    ("alt: the same UPDATE returning id only", PGQ, "select alt.claim_narrow_return({qid});", 1, "pgq"),
    ("alt: only state and token written", PGQ, "select alt.claim_state_only({qid});", 1, "pgq"),
    ("alt: q.claim's body without its SET clauses (plpgsql)", PGQ, "select * from alt.claim('bench', 1);", 1,
     "pgq"),
    ("alt: the hot path as one SQL function (security definer, set search_path)", PGQ,
     "select * from alt.claim_sql('bench', 1);", 1, "pgq"),
    ("alt: the same SQL function without SET search_path", PGQ, "select * from alt.claim_sql_noset('bench', 1);", 1,
     "pgq"),
    ("alt: q.claim through one more plpgsql function (a shared claim statement)", PGQ,
     "select * from alt.claim_nested('bench', 1);", 1, "pgq"),
    ("alt: HOT-friendly claim (lease column, no state predicate)", PGQ, "select * from alt.claim_hot({qid});", 1,
     "hot"),
    ("cycle: q.claim + q.complete", PGQ, (SQL / "pgbench" / "pgq_cycle.sql").read_text(), 1, "pgq"),
    ("cycle: raw claim + DELETE by id (seed 001)", RAW, (SQL / "pgbench" / "raw_cycle.sql").read_text(), 1, "raw"),
    ("cycle: alt claim + DELETE by ctid", PGQ,
     "select id, {q}(job_ctid::text) as c, {q}(token::text) as t from alt.claim_ctid({qid}) \\gset\n"
     "select alt.complete_by_ctid(:c::tid, :t::uuid);\n", 1, "pgq"),
    ("cycle: HOT-friendly claim + DELETE by ctid", PGQ,
     "select {q}(job_ctid::text) as c, {q}(token::text) as t from alt.claim_hot({qid}) \\gset\n"
     "select alt.complete_hot_by_ctid(:c::tid, :t::uuid);\n", 1, "hot"),
    ("cycle: complete previous + claim next in one statement", PGQ,
     "select id as pid, {q}(token::text) as ptok from alt.complete_and_claim(:pid, :ptok::uuid, {qid}) \\gset\n",
     1, "pgq"),
]
NESTED_TOP = 14
# the claim-rate article's claim as one statement (pgbench's :client_id filled in)
RAW_CLAIM = (SQL / "pgbench" / "raw_claim.sql").read_text().strip().rstrip(";").replace(":client_id", "1")


# The two claims auto_explain and perf look into: (label, database, statement, reset kind).
PROFILED = [
    ("q.claim('bench', 1)", PGQ, "select * from q.claim('bench', 1)", "pgq"),
    ("raw claim", RAW, RAW_CLAIM, "raw"),
]


def claim_noset_sql() -> str:
    """Today's q.claim (sql/functions/claim.sql) as alt.claim, without `set search_path` and
    `set plan_cache_mode` (same name: its body qualifies parameters with it): what the per-call GUC
    save/restore of a function's SET clauses costs."""
    text = (ROOT / "sql" / "functions" / "claim.sql").read_text()
    body = text[: text.index("$$;") + 3]
    body = body.replace("create or replace function q.claim(", "create function alt.claim(")
    return "\n".join(line for line in body.splitlines()
                     if not line.strip().startswith(("set search_path", "set plan_cache_mode")))


def _reset(conn: psycopg.Connection[Any], kind: str, backlog: int) -> None:
    if kind == "raw":
        databases.reset_seed001(conn, backlog)
    elif kind == "pgq":
        databases.reset_pgq(conn, backlog)
    else:
        conn.execute("delete from alt.job where lease_until is not null")
        have = conn.execute("select count(*) from alt.job").fetchone()[0]
        conn.execute(
            "insert into alt.job (queue_id, payload, run_at, state) select %s, jsonb_build_object('n', g),"
            " clock_timestamp(), 'w' from generate_series(1, %s) g",
            (databases.queue_id(conn), max(0, backlog - have)),
        )
        conn.execute("vacuum (analyze) alt.job")


def _setup(ctx: Context, backlog: int) -> int:
    srv = ctx.server
    databases.new_pgq(srv, PGQ)
    with srv.connect(PGQ) as conn:
        databases.execute(conn, (SQL / "profile_alternatives.sql").read_text())
        databases.execute(conn, claim_noset_sql())
        conn.execute("create extension if not exists pg_stat_statements")
        databases.fill_pgq(conn, backlog)
        databases.execute(conn, "vacuum (analyze) q_data.job")
        _reset(conn, "hot", backlog)
        qid = databases.queue_id(conn)
    databases.new_raw(srv, RAW, "seed001.sql")
    with srv.connect(RAW) as conn:
        conn.execute("create extension if not exists pg_stat_statements")
        databases.fill_seed001(conn, backlog)
        conn.execute("vacuum (analyze) jobs")
    return qid


def per_call(ctx: Context, qid: int, backlog: int, calls: int) -> tuple[dict[str, float], dict[str, int]]:
    """Median µs per job of each case, and how many of the claim updates were HOT (pg_stat_user_tables)."""
    srv, p = ctx.server, ctx.profile
    us: dict[str, list[float]] = defaultdict(list)
    hot: dict[str, int] = {}
    for rep in range(p.reps):
        for label, db, script, per, kind in ctx.order(CASES, rep):
            table = {"raw": "jobs", "pgq": "q_data.job", "hot": "alt.job"}[kind]
            with srv.connect(db) as conn:
                _reset(conn, kind, backlog)
                table = databases.adapt(conn, table)
                before = _hot_updates(conn, table)
            r = pgbench.run(srv, db, script.replace("{qid}", str(qid)), 1, 60, options=ASYNC, transactions=calls,
                            defines={"pid": "0", "ptok": f"'{ZERO_UUID}'"})
            us[label].append(1e6 / (r.tps * per))
            time.sleep(0.6)  # statistics reach pg_stat_user_tables within PGSTAT_MIN_INTERVAL (~1 s)
            with srv.connect(db) as conn:
                hot[label] = _hot_updates(conn, table) - before
        ctx.log(f"claim_profile: per-call run {rep + 1} done")
    return {k: statistics.median(v) for k, v in us.items()}, hot


def _hot_updates(conn: psycopg.Connection[Any], table: str) -> int:
    r = conn.execute("select coalesce(n_tup_hot_upd, 0) from pg_stat_user_tables where relid = %s::regclass",
                     (table,)).fetchone()
    return int(r[0]) if r else 0


def statements(ctx: Context, backlog: int, calls: int) -> tuple[list[list[str]], dict[str, float]]:
    """pg_stat_statements (track = all, track_planning on): q.claim, what it runs inside, and the raw claim.

    Also returns the figures the reading needs (µs per call): pgq_plan, pgq_exec, update, queue, raw_plan, raw_exec.
    """
    srv = ctx.server
    out = []
    fig: dict[str, float] = {}
    for db, kind, script in ((PGQ, "pgq", "select * from q.claim('bench', 1);"),
                             (RAW, "raw", (SQL / "pgbench" / "raw_claim.sql").read_text())):
        with srv.connect(db) as conn:
            _reset(conn, kind, backlog)
            conn.execute("select pg_stat_statements_reset()")
        pgbench.run(srv, db, script, 1, 60, transactions=calls,
                    options=ASYNC + " -c pg_stat_statements.track=all -c pg_stat_statements.track_planning=on")
        with srv.connect(db) as conn:
            update_job, from_queue = (databases.adapt(conn, s) for s in ("update q_data.job", "from q_data.queue"))
            rows = conn.execute(
                "select toplevel, calls, mean_plan_time * 1000, mean_exec_time * 1000, query from pg_stat_statements"
                " where dbid = (select oid from pg_database where datname = current_database())"
                "   and query not like '%%pg_stat_statements%%' and calls >= %s"
                " order by toplevel desc, total_exec_time desc limit %s", (calls // 2, NESTED_TOP)).fetchall()
        for toplevel, n, plan_us, exec_us, query in rows:
            q = " ".join(query.split())
            low = q.lower()
            if kind == "pgq" and toplevel and "q.claim" in low:
                fig["pgq_plan"], fig["pgq_exec"] = plan_us, exec_us
            # q.claim's statement: the UPDATE itself (0007), or a CTE around it (revision 0009 on)
            elif kind == "pgq" and not toplevel and (low.startswith(update_job)
                                                     or (low.startswith("with ") and update_job in low)):
                fig["update"] = exec_us
            elif kind == "pgq" and not toplevel and from_queue in low:
                fig["queue"] = exec_us
            elif kind == "raw" and toplevel and low.startswith("update jobs"):
                fig["raw_plan"], fig["raw_exec"] = plan_us, exec_us
            out.append([db.removeprefix("bench_profile_"), "top level" if toplevel else "inside", f"{n:,}",
                        f"{plan_us:.1f} µs" if toplevel else "(cached)", f"{exec_us:.1f} µs",
                        "`" + (q[:100] + "…" if len(q) > 100 else q) + "`"])
    return out, fig


def reading(fig: dict[str, float]) -> str:
    """Where q.claim's extra time goes, from this run's pg_stat_statements figures."""
    need = ("pgq_plan", "pgq_exec", "update", "queue", "raw_plan", "raw_exec")
    if not all(k in fig for k in need):
        return "pg_stat_statements did not return every figure the reading needs in this run."
    pgq = fig["pgq_plan"] + fig["pgq_exec"]
    raw = fig["raw_plan"] + fig["raw_exec"]
    wrapper = fig["pgq_exec"] - fig["update"] - fig["queue"]
    return (
        f"**Where the time goes (this run, server side, µs per call).** q.claim: {pgq:.0f} µs "
        f"(planning the `select * from q.claim(...)` {fig['pgq_plan']:.0f}, executing it {fig['pgq_exec']:.0f}); "
        f"seed 001's UPDATE: {raw:.0f} µs (planning {fig['raw_plan']:.0f}, executing {fig['raw_exec']:.0f}); "
        f"difference {pgq - raw:+.0f} µs. Inside q.claim the UPDATE executes in {fig['update']:.0f} µs against "
        f"the raw UPDATE's {fig['raw_exec']:.0f} ({fig['update'] - fig['raw_exec']:+.0f}: a TID scan of the "
        "claimed ctid and a ModifyTable that writes five columns, inserts the job_running_idx entry, checks three "
        "CHECK constraints and returns the payload, where the raw one sets three columns and returns nothing), "
        f"the queue lookup in {fig['queue']:.0f} µs, and {wrapper:.0f} µs are the function itself: the call of a "
        "security-definer plpgsql function with two SET clauses (a GUC save and restore per call: AtEOXact_GUC "
        "and OverrideSearchPathMatchesCurrent in the perf table), its argument checks, current_setting reads, "
        "RETURN QUERY into a tuplestore and the loop. The raw statement is planned on every call under "
        f"pgbench -M simple ({fig['raw_plan']:.0f} µs), where q.claim's UPDATE reuses its cached generic plan: "
        "that is why q.claim is not further behind. A prepared raw statement (what a real client with "
        "prepared statements sends) would skip that planning, so the wrapper is the gap to close."
    )


PLAN = re.compile(r"plan:\s*(\{.*\})\s*$", re.S)


def _walk(node: dict[str, Any], acc: dict[str, list[float]], path: str = "") -> float:
    """Exclusive time per node label, averaged over loops; returns the node's inclusive time."""
    loops = node.get("Actual Loops", 1) or 1
    inclusive = node.get("Actual Total Time", 0.0) * loops
    child = sum(_walk(c, acc, path + "· ") for c in node.get("Plans", []))
    label = node["Node Type"]
    for k in ("Index Name", "Relation Name", "Function Name"):
        if k in node:
            label += f" {node[k]}"
    acc[path + label].append(max(0.0, inclusive - child))
    return inclusive


def explain(ctx: Context, backlog: int, calls: int) -> dict[str, list[list[str]]]:
    """auto_explain's per-node times of the UPDATE inside q.claim and of the raw UPDATE."""
    srv = ctx.server
    settings = {
        "auto_explain.log_min_duration": "0", "auto_explain.log_analyze": "on", "auto_explain.log_timing": "on",
        "auto_explain.log_nested_statements": "on", "auto_explain.log_format": "json",
        "auto_explain.log_level": "notice", "synchronous_commit": "off",
    }
    out: dict[str, list[list[str]]] = {}
    for label, db, sql, kind in PROFILED:
        with srv.connect(db) as conn:
            _reset(conn, kind, backlog)
            plans: list[tuple[float, dict[str, Any]]] = []

            def notice(diag: psycopg.errors.Diagnostic, plans: list = plans) -> None:
                m = PLAN.search(diag.message_primary or "")
                if m:
                    d = re.search(r"duration: ([0-9.]+) ms", diag.message_primary or "")
                    plans.append((float(d.group(1)) if d else 0.0, json.loads(m.group(1))))

            conn.add_notice_handler(notice)
            for k, v in settings.items():
                conn.execute(f"set {k} = '{v}'")
            for _ in range(calls):
                conn.execute(sql)
        acc: dict[str, list[float]] = defaultdict(list)
        tops: list[float] = []
        for duration, plan in plans:
            text = plan.get("Query Text", "").lower()
            if "update" in text and "q.claim" not in text:
                _walk(plan["Plan"], acc)
            else:
                tops.append(duration)
        rows = [[name, f"{statistics.mean(v) * 1000:.1f} µs"] for name, v in acc.items()]
        if tops:
            rows.append([f"whole statement `{sql[:40]}…` as auto_explain timed it",
                         f"{statistics.mean(tops) * 1000:.1f} µs"])
        out[label] = rows
    return out


def perf(ctx: Context, backlog: int, seconds: float) -> tuple[dict[str, list[list[str]]], str]:
    """perf record (cpu-clock) on the backend while it claims; top symbols and the plpgsql share."""
    exe = shutil.which("perf")
    if exe is None:
        return {}, "perf is not installed (Debian: linux-perf)."
    srv = ctx.server
    out: dict[str, list[list[str]]] = {}
    for label, db, sql, kind in PROFILED:
        with srv.connect(db) as conn:
            _reset(conn, kind, backlog)
            conn.execute("set synchronous_commit = off")
            pid = conn.execute("select pg_backend_pid()").fetchone()[0]
            with tempfile.TemporaryDirectory() as tmp:
                data = Path(tmp) / "perf.data"
                rec = subprocess.Popen([exe, "record", "-q", "-e", "cpu-clock", "-F", "4000", "-g", "-o", str(data),
                                        "-p", str(pid), "--", "sleep", str(seconds)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                stop = threading.Event()
                time.sleep(0.3)
                end = time.monotonic() + seconds - 0.5
                while time.monotonic() < end and not stop.is_set():
                    conn.execute(sql)
                _, err = rec.communicate(timeout=seconds + 30)
                if rec.returncode != 0 or not data.exists():
                    return {}, f"perf record failed here: {err.strip()[-300:]}"
                rep = subprocess.run([exe, "report", "-i", str(data), "--stdio", "--no-children", "-g", "none",
                                      "--sort", "dso,symbol", "--percent-limit", "0.3"],
                                     capture_output=True, text=True, timeout=120).stdout
                by_dso = subprocess.run([exe, "report", "-i", str(data), "--stdio", "--no-children", "-g", "none",
                                         "--sort", "dso"], capture_output=True, text=True, timeout=120).stdout
        rows: list[list[str]] = []
        for line in rep.splitlines():
            m = re.match(r"\s*([0-9.]+)%\s+(\S+)\s+\[.\]\s+(\S+)", line)
            if m and len(rows) < 15:
                rows.append([f"{float(m.group(1)):.1f}%", m.group(2), f"`{m.group(3)}`"])
        for line in by_dso.splitlines():
            m = re.match(r"\s*([0-9.]+)%\s+(\S+)\s*$", line)
            if m and float(m.group(1)) >= 0.5:
                rows.append([f"{float(m.group(1)):.1f}%", m.group(2), "(all of it)"])
        out[label] = rows
    return out, ""


def run(ctx: Context) -> Section:
    srv, p = ctx.server, ctx.profile
    if not srv.own:
        return Section(key="claim_profile", title="The claim path, profiled",
                       method="**Skipped**: it restarts the server with shared_preload_libraries, which the "
                              "harness does only on its own cluster (run without --database-url).")
    backlog = p.history_waiting
    calls = min(p.pgbench_transactions, 100) if p.pgbench_transactions else 3000
    preload_before = srv.setting("shared_preload_libraries")
    srv.restart_with({"shared_preload_libraries": PRELOAD})
    try:
        qid = _setup(ctx, backlog)
        cost, hot = per_call(ctx, qid, backlog, calls)
        stmts, figures = statements(ctx, backlog, calls)
        plans = explain(ctx, backlog, min(calls, 300))
        profiles, perf_note = perf(ctx, backlog, 1.0 if p.name == "quick" else 6.0)
    finally:
        for db in (PGQ, RAW):
            srv.drop(db)
        srv.restart_with({"shared_preload_libraries": preload_before or None})
    raw = cost["raw claim (seed 001's UPDATE)"]
    tables = [Table(
        caption=f"per job, 1 client, synchronous_commit off, {calls:,} transactions per run, median of {p.reps}",
        headers=["case", "per job", "vs raw claim", "HOT updates in the run"],
        rows=[[label, f"{cost[label]:.0f} µs", f"{cost[label] - raw:+.0f} µs" if not label.startswith("cycle")
               else "", f"{hot.get(label, 0):,}" if "HOT" in label or label.startswith("q.claim(") else ""]
              for label, *_ in CASES])]
    tables.append(Table(caption="pg_stat_statements (track = all, track_planning = on): mean per call",
                        headers=["database", "level", "calls", "planning", "execution", "statement"], rows=stmts))
    for label, rows in plans.items():
        tables.append(Table(caption=f"auto_explain, {label}: exclusive time per plan node (mean per call; "
                                    "per-node timing adds its own overhead)",
                            headers=["node (indented by depth)", "exclusive time"], rows=rows))
    for label, rows in profiles.items():
        tables.append(Table(caption=f"perf, {label}: hottest functions of the backend (cpu-clock samples, self time)",
                            headers=["share", "object", "function"], rows=rows))
    notes = [reading(figures)] + ([perf_note] if perf_note else [])
    notes.append("Debian's postgresql-15-dbgsym is not installable here: the debug archive "
                 "(deb.debian.org/debian-debug) answers 400, so perf resolves names from the binary's dynamic "
                 "symbols only (static functions show as addresses) and call graphs are frame-pointer based.")
    return Section(
        key="claim_profile",
        title="The claim path, profiled",
        method=" ".join((__doc__ or "").split("\n\n", 1)[1].split()),
        tables=tables,
        notes=notes,
        data={"per_call_us": cost, "hot_updates": hot, "statements_us": figures},
    )
