"""Server CPU per call of enqueue, claim and claim + complete, in several databases side by side.

    perf must be installed and usable on PostgreSQL's backends (root, or perf_event_paranoid <= 1);
    each database is pgq at some revision (pgq migrate --revision REV), with an idle queue "b".

    python -m bench.cpu_per_call "$DATABASE_URL" N ROUNDS CHUNK db1 db2 ...

One `perf stat -e task-clock` per backend and phase counts only that backend's CPU time. The
databases take turns in chunks of CHUNK calls (order reversed every chunk), so a change of the
machine's speed during a phase reaches every database alike: on a shared 2-core VM six runs of one
pure-Python loop took 0.47 to 0.85 s (docs/manual/design.md#no-update-trigger-on-the-job-table).
Each round: N enqueues twice, N claims left running, N claim + complete, and N / 50 calls of
q.enqueue_many with 500 payloads (per job); every call its own transaction, prepared. Prints each
round and the medians in microseconds per call (per job for the bulk enqueue).
"""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import sys
import time

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

URL = sys.argv[1]
N, ROUNDS, CH = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
DBS = sys.argv[5:]


def perf_start(pid):
    return subprocess.Popen(
        ["perf", "stat", "-x,", "-e", "task-clock", "-p", str(pid)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )


def perf_stop(p):
    p.send_signal(signal.SIGINT)
    err = p.communicate()[1]
    for line in err.splitlines():
        if "task-clock" in line:
            return float(line.split(",")[0]) * 1000.0
    raise RuntimeError(err)


conns = {d: psycopg.connect(make_conninfo(**{**conninfo_to_dict(URL), "dbname": d}), autocommit=True) for d in DBS}
sch = {}
for d, c in conns.items():
    sch[d] = c.execute(
        "select n.nspname from pg_class k join pg_namespace n on n.oid=k.relnamespace "
        "where k.relname='job' and n.nspname in ('q','q_data')"
    ).fetchone()[0]
pids = {d: c.execute("select pg_backend_pid()").fetchone()[0] for d, c in conns.items()}


def phase(op, calls=None, chunk=None):
    calls, chunk = calls or N, chunk or CH
    ps = {d: perf_start(pids[d]) for d in DBS}
    time.sleep(0.3)
    for start in range(0, calls, chunk):
        for d in DBS if (start // chunk) % 2 == 0 else DBS[::-1]:
            for _ in range(chunk):
                op(d, conns[d])
    time.sleep(0.1)
    return {d: perf_stop(ps[d]) / calls for d in DBS}


res = {d: {"enqueue": [], "claim": [], "cycle": [], "bulk_per_job": []} for d in DBS}
BULK = json.dumps([{"a": 1, "b": "x" * 40} for _ in range(500)])
toks = {d: [] for d in DBS}


def enq(d, c):
    c.execute("select q.enqueue(%s, %s::jsonb)", ("b", '{"a":1}'), prepare=True)


def clm(d, c):
    toks[d].append(c.execute("select id, token from q.claim(%s, 1)", ("b",), prepare=True).fetchone())


def bulk(d, c):
    c.execute("select q.enqueue_many(%s, %s::jsonb)", ("bulk", BULK), prepare=True)


def cyc(d, c):
    jid, tok = c.execute("select id, token from q.claim(%s, 1)", ("b",), prepare=True).fetchone()
    c.execute("select q.complete(%s, %s)", (jid, tok), prepare=True)


for r in range(ROUNDS):
    for d, c in conns.items():
        c.execute(
            f"delete from {sch[d]}.job where queue_id in (select id from {sch[d]}.queue where name in ('b', 'bulk'))"
        )
        c.execute(f"vacuum {sch[d]}.job")
    # 2N jobs: N for the claims left running, N for claim + complete.
    first, second = phase(enq), phase(enq)
    for d in DBS:
        res[d]["enqueue"].append((first[d] + second[d]) / 2)
    for name, op in (("claim", clm), ("cycle", cyc)):
        out = phase(op)
        for d in DBS:
            res[d][name].append(out[d])
    out = phase(bulk, calls=max(N // 50, 1), chunk=1)
    for d in DBS:
        res[d]["bulk_per_job"].append(out[d] / 500)
    for d, c in conns.items():
        for jid, tok in toks[d]:
            c.execute("select q.complete(%s, %s)", (jid, tok), prepare=True)
        toks[d] = []
    print("round", r, {d: {k: round(v[-1], 1) for k, v in res[d].items()} for d in DBS}, flush=True)
print("MEDIANS (us of server CPU per call)")
for d in DBS:
    print(d, {k: round(statistics.median(v), 1) for k, v in res[d].items()})
json.dump(res, sys.stderr)
