"""14. Workflows: what a completion costs when the job has children, and a fan-in of many parents.

The goals (design.md#results-and-dependencies): q.complete of a job with up to 10 children
within 1.5x of the plain complete (p50 and p95), and a fan-in of 10,000 parents into one
child completes with no completion above 2x the plain one. A child becomes waiting in the
transaction that completes its last parent (a counter on the child row, no background
resolver), so each parent's completion updates its children's rows: that is the cost
measured here.

One database at head. Each figure is the client's time for `select q.complete(id, token)`
in autocommit (the call and its commit), one job per call, on one connection:
- plain: parents without children;
- 10 children: each parent has 10 children (q.enqueue_after), so its completion
  decrements 10 counters (and the last of them makes 10 children waiting);
- fan-in: one child after N parents (the per-job cap, 10,000 in the full profile): every
  completion decrements the same child row, and the last one makes it waiting.
The plain and 10-children runs alternate, the profile's number of runs each; percentiles
pool every run. The jobs of a run are deleted before the next.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

import psycopg

from .. import databases
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, percentile

DB = "bench_workflows"
PARENTS, CHILDREN = "wf_parent", "wf_child"


def _complete_all(conn: psycopg.Connection[Any], queue: str, n: int) -> list[float]:
    """Claim n jobs of queue and complete them one per call; seconds per completion."""
    jobs: list[tuple[int, Any]] = []
    while len(jobs) < n:  # q.claim takes at most 1,000 per call
        got = conn.execute("select id, token from q.claim(%s, %s, lease => interval '30 minutes')",
                           (queue, min(1000, n - len(jobs)))).fetchall()
        assert got, f"only {len(jobs)} of {n} jobs claimed"
        jobs += got
    times: list[float] = []
    for job_id, token in jobs:
        t0 = time.perf_counter()
        done = conn.execute("select q.complete(%s, %s)", (job_id, token)).fetchone()[0]
        times.append(time.perf_counter() - t0)
        assert done, f"job {job_id} was not completed"
    return times


def _clear(conn: psycopg.Connection[Any]) -> None:
    conn.execute("delete from q_data.job where queue_id in (select id from q_data.queue where name in (%s, %s))",
                 (PARENTS, CHILDREN))
    conn.execute("vacuum analyze q_data.job")


def _fan_out(conn: psycopg.Connection[Any], n: int, children: int) -> list[float]:
    """n parents with `children` children each; the time of each parent's completion."""
    with conn.transaction():
        parents = [r[0] for r in conn.execute(
            "select q.enqueue(%s, jsonb_build_object('n', g)) from generate_series(1, %s) g", (PARENTS, n))]
        if children:
            conn.execute("select q.enqueue_after(%s, '{}', array[p]) from unnest(%s::bigint[]) p,"
                         " generate_series(1, %s) c", (CHILDREN, parents, children))
    conn.execute("analyze q_data.job")
    times = _complete_all(conn, PARENTS, n)
    waiting = conn.execute(
        "select count(*) from q_data.job j join q_data.queue qq on qq.id = j.queue_id"
        " where qq.name = %s and j.state = 'w'", (CHILDREN,)).fetchone()[0]
    assert waiting == n * children, f"{waiting} children waiting, expected {n * children}"
    _clear(conn)
    return times


def _fan_in(conn: psycopg.Connection[Any], n: int) -> list[float]:
    """One child after n parents; the time of each parent's completion."""
    with conn.transaction():
        ids = [r[0] for r in conn.execute(
            "select q.enqueue(%s, jsonb_build_object('n', g)) from generate_series(1, %s) g", (PARENTS, n))]
        child = conn.execute("select q.enqueue_after(%s, '{}', %s)", (CHILDREN, ids)).fetchone()[0]
    conn.execute("analyze q_data.job")
    times = _complete_all(conn, PARENTS, n)
    state = conn.execute("select state from q_data.job where id = %s", (child,)).fetchone()[0]
    assert state == "w", f"the fan-in child is {state}, not waiting"
    _clear(conn)
    return times


def run(ctx: Context) -> Section:
    p = ctx.profile
    quick = p.name == "quick"
    jobs = 200 if quick else 2_000
    fan_in = 500 if quick else 10_000
    dsn = databases.new_pgq(ctx.server, DB)
    times: dict[str, list[float]] = defaultdict(list)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for rep in range(p.reps):
                for label, kids in ctx.order([("plain", 0), ("10 children", 10)], rep):
                    times[label] += _fan_out(conn, jobs, kids)
                    ctx.log(f"workflows: run {rep + 1} {label}: p50 {median(times[label]) * 1e3:.3f} ms")
            for rep in range(p.reps):
                times["fan-in"] += _fan_in(conn, fan_in)
                ctx.log(f"workflows: fan-in run {rep + 1}: p50 {median(times['fan-in']) * 1e3:.3f} ms")
    finally:
        ctx.server.drop(DB)

    plain50, plain95 = median(times["plain"]), percentile(times["plain"], 95)

    def row(label: str) -> list[str]:
        t = times[label]
        return [label, f"{len(t):,}", f"{median(t) * 1e3:.3f}", f"{percentile(t, 95) * 1e3:.3f}",
                f"{percentile(t, 99) * 1e3:.3f}", f"{max(t) * 1e3:.3f}",
                f"{median(t) / plain50:.2f}x", f"{percentile(t, 95) / plain95:.2f}x"]

    kids50 = median(times["10 children"]) / plain50
    kids95 = percentile(times["10 children"], 95) / plain95
    over = sum(1 for t in times["fan-in"] if t > 2 * plain50)
    # The noise floor: how many plain completions are themselves above 2x their own p50.
    plain_over = sum(1 for t in times["plain"] if t > 2 * plain50)
    fan95 = percentile(times["fan-in"], 95) / plain95
    return Section(
        key="workflows",
        title="14. Workflows: completing jobs with children",
        method=(
            f"q.complete timed by the client (call and commit, autocommit, one connection): {jobs:,} parents "
            f"without children and {jobs:,} with 10 children each, alternating, {p.reps} runs each; then a fan-in "
            f"of {fan_in:,} parents into one child, {p.reps} runs. Percentiles pool the runs."
        ),
        tables=[Table(caption="q.complete, milliseconds",
                      headers=["jobs", "completions", "p50", "p95", "p99", "max", "p50 vs plain", "p95 vs plain"],
                      rows=[row("plain"), row("10 children"), row("fan-in")])],
        targets=[
            Target("complete with 10 children ≤ 1.5x plain (p50 and p95)", kids50 <= 1.5 and kids95 <= 1.5,
                   f"p50 {kids50:.2f}x, p95 {kids95:.2f}x"),
            Target(f"fan-in of {fan_in:,}: no completion above 2x the plain p50", over == 0,
                   f"{over} of {len(times['fan-in']):,} above 2x ({2 * plain50 * 1e3:.3f} ms); "
                   f"p95 {fan95:.2f}x plain p95; plain itself: {plain_over} of {len(times['plain']):,} above 2x"),
        ],
        data={"seconds": dict(times)},
    )
