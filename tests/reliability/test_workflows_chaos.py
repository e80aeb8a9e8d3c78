"""Workflows under chaos (design.md#results-and-dependencies): 8 worker processes run a fan-out,
a fan-in, a multi-layer DAG, a chain and a batch while the test SIGKILLs workers and terminates
their backends at random for PGQ_CHAOS_SECONDS (default 20).

An independent ledger, written by the handlers, proves: every job completed exactly
once (its "done" row is written in the completing transaction), 0 lost, 0 stuck; every
start of a child came after its parents' completions; extra runs happened only to
claims whose worker was killed; the batch callback ran exactly once with the counts.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from typing import Any

import pgq_client
import psycopg

from .figures import record

FORK = multiprocessing.get_context("fork")
WORKERS = 8
# PGQ_CHAOS_FULL=1: the full-size workloads (fan-out 10,000, fan-in 10,000, a 20-layer DAG,
# a chain of 10,000, a batch of 1,000) for 60 s; run it alone, not in `make test`.
FULL = os.environ.get("PGQ_CHAOS_FULL") == "1"
SECONDS = float(os.environ.get("PGQ_CHAOS_SECONDS", "60" if FULL else "20"))
FAN, LAYERS, WIDTH, CHAIN, MEMBERS = (10_000, 20, 50, 10_000, 1_000) if FULL else (300, 8, 20, 80, 100)
QUEUE = "chaos"


def work(url: str, seed: int) -> None:
    """A worker: claim under its session key, ledger start, run, ledger end, complete + done in one
    transaction. Killed at any point by the test."""
    try:
        _work(url, random.Random(seed))
    except psycopg.OperationalError:
        os._exit(0)  # the test terminated this backend: the process ends (a new one takes its place)


def _work(url: str, rng: random.Random) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        key = conn.execute("select q.session_key()").fetchone()[0]
        while True:
            jobs = conn.execute("select id, token from q.claim(%s, %s, owner => %s)",
                                (QUEUE + "-cb" if rng.random() < 0.1 else QUEUE, rng.randint(1, 4), key)).fetchall()
            if not jobs:
                time.sleep(0.01)
                continue
            for job_id, token in jobs:
                conn.execute("insert into public.ledger (job_id, event, pid) values (%s, 'start', %s)",
                             (job_id, os.getpid()))
                time.sleep(rng.random() * 0.005)
                with conn.transaction():
                    if conn.execute("select q.complete(%s, %s)", (job_id, token)).fetchone()[0]:
                        conn.execute("insert into public.ledger (job_id, event, pid) values (%s, 'done', %s)",
                                     (job_id, os.getpid()))


def build(conn: psycopg.Connection[Any]) -> tuple[list[tuple[int, int]], int]:
    """The workloads, smaller than the soak's: returns the edges (parent, child) and the batch id."""
    rng = random.Random(7)
    graph: list[dict[str, Any]] = [{"ref": "root", "queue": QUEUE, "payload": {"w": "fan-out root"}}]
    graph += [{"ref": f"out{i}", "queue": QUEUE, "payload": {}, "after": ["root"]} for i in range(FAN)]
    graph += [{"ref": f"in{i}", "queue": QUEUE, "payload": {}} for i in range(FAN)]
    graph.append({"ref": "sink", "queue": QUEUE, "payload": {"w": "fan-in"}, "after": [f"in{i}" for i in range(FAN)]})
    for layer in range(LAYERS):
        for i in range(WIDTH):
            after = [] if layer == 0 else rng.sample([f"d{layer - 1}.{j}" for j in range(WIDTH)], 3)
            graph.append({"ref": f"d{layer}.{i}", "queue": QUEUE, "payload": {}, "after": after})
    graph += [{"ref": f"c{i}", "queue": QUEUE, "payload": {}, "after": [f"c{i - 1}"] if i else []}
              for i in range(CHAIN)]
    batch = pgq_client.create_batch(conn, QUEUE + "-cb", {"w": "callback"})
    graph += [{"ref": f"b{i}", "queue": QUEUE, "payload": {}, "batch": batch} for i in range(MEMBERS)]
    ids = pgq_client.enqueue_flow(conn, graph)
    pgq_client.seal_batch(conn, batch)
    edges = [(ids[p], ids[j["ref"]]) for j in graph for p in j.get("after", [])]
    return edges, batch


def test_workflows_survive_killed_workers_and_terminated_backends(conn: psycopg.Connection[Any], db_url: str) -> None:
    conn.autocommit = True
    conn.execute("""create table public.ledger (job_id bigint not null, event text not null, pid int not null,
                                                at timestamptz not null default clock_timestamp())""")
    conn.execute("grant all on public.ledger to public")
    edges, batch = build(conn)
    total = conn.execute("select count(*) from q_data.job").fetchone()[0]

    procs = {w: FORK.Process(target=work, args=(db_url, w)) for w in range(WORKERS)}
    for p in procs.values():
        p.start()
    rng = random.Random(11)
    kills = terminations = 0
    deadline = time.monotonic() + SECONDS
    try:
        while time.monotonic() < deadline:
            time.sleep(rng.uniform(0.1, 0.6))
            # A worker whose backend was terminated exits (its connection is gone): start another.
            for v, p in procs.items():
                if not p.is_alive():
                    p.join()
                    procs[v] = FORK.Process(target=work, args=(db_url, rng.randrange(10**6)))
                    procs[v].start()
            w = rng.randrange(WORKERS)
            if rng.random() < 0.5:
                pid = procs[w].pid
                assert pid is not None
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills += 1
                except ProcessLookupError:
                    pass
                procs[w].join()
                procs[w] = FORK.Process(target=work, args=(db_url, rng.randrange(10**6)))
                procs[w].start()
            else:
                terminations += conn.execute(
                    "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                    " where datname = current_database() and pid <> pg_backend_pid()"
                    " and application_name = '' and backend_type = 'client backend'"
                    " and pid = (select pid from pg_stat_activity where datname = current_database()"
                    "  and pid <> pg_backend_pid() and backend_type = 'client backend' order by random() limit 1)"
                ).fetchone()[0]
            conn.execute("select q.reap()")
        # Let the survivors (and fresh workers for terminated backends) finish, reaping lost claims.
        for w, p in procs.items():
            if not p.is_alive():
                procs[w] = FORK.Process(target=work, args=(db_url, 1000 + w))
                procs[w].start()
        finish = time.monotonic() + (1800 if FULL else 120)
        while conn.execute("select count(*) from q_data.job").fetchone()[0] and time.monotonic() < finish:
            conn.execute("select q.reap()")
            for w, p in procs.items():
                if not p.is_alive():
                    procs[w] = FORK.Process(target=work, args=(db_url, 2000 + w))
                    procs[w].start()
            time.sleep(0.2)
    finally:
        for p in procs.values():
            if p.is_alive():
                os.kill(p.pid or 0, signal.SIGKILL)
            p.join()

    stuck = conn.execute("select id, state from q_data.job order by id limit 5").fetchall()
    assert stuck == [], f"stuck jobs: {stuck}"
    done = dict(conn.execute("select job_id, count(*) from public.ledger where event = 'done' group by 1").fetchall())
    assert len(done) == total + 1, "every job (and the one callback) completed: 0 lost"
    assert set(done.values()) == {1}, "each completed exactly once"
    # Re-runs: a start without a done in the same process, then another start.
    reruns = conn.execute("""
        select count(*) from (select job_id from public.ledger where event = 'start'
                               group by 1 having count(*) > 1) x""").fetchone()[0]
    # Runs whose process died without completing them are the only ones repeated.
    orphan_starts = conn.execute("""
        select s.pid from public.ledger s
         where s.event = 'start'
           and not exists (select from public.ledger d
                            where d.event = 'done' and d.job_id = s.job_id and d.pid = s.pid)""")
    orphan_pids = {r[0] for r in orphan_starts.fetchall()}
    assert reruns <= kills + terminations + len(orphan_pids)
    # Every start of a child came after its parent's completion.
    late = conn.execute("""
        select count(*) from unnest(%s::bigint[], %s::bigint[]) e(parent, child)
          join public.ledger pd on pd.job_id = e.parent and pd.event = 'done'
          join public.ledger cs on cs.job_id = e.child and cs.event = 'start'
         where cs.at < pd.at""", ([p for p, _ in edges], [c for _, c in edges])).fetchone()[0]
    assert late == 0, "a child started before one of its parents completed"
    info = pgq_client.batch(conn, batch)
    assert info is not None and info.callback_id is not None and info.completed == MEMBERS
    callbacks = conn.execute("select count(*) from public.ledger where event = 'done' and job_id = %s",
                             (info.callback_id,)).fetchone()[0]
    assert callbacks == 1
    record("14", f"workflows chaos ({'full size' if FULL else 'make test size'}, {SECONDS:g} s)", jobs=total,
           edges=len(edges), fan_out=FAN, fan_in=FAN, dag_layers=LAYERS, chain=CHAIN, batch_members=MEMBERS,
           workers=WORKERS, kills=kills, terminated_backends=terminations, lost=0, stuck=0,
           duplicate_completions=0, rerun_jobs=reruns, children_started_early=late, batch_callbacks=callbacks)
    print(f"\n{total} jobs, {len(edges)} edges, {SECONDS:.0f} s of chaos: {kills} SIGKILLs, "
          f"{terminations} terminated backends, {reruns} re-run jobs")
