"""Suite 9 (long variant): with 1.8 million finished jobs in q_data.job_history
(the claim-rate article's figure, design.md#finished-jobs-leave-the-hot-table)
and a 50,000-job backlog, the claim q.claim really runs still reads the partial
claim index, never sorts or scans, touches fewer than 100 buffers, and q.reap
purges expired history in bounded batches."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from ..plans import buffers, claim_plan, nodes, shape, sorts_only_claimed_rows
from .cluster import Cluster

HISTORY = 1_800_000
BACKLOG = 50_000


def run(cluster: Cluster, logs: Path) -> dict[str, Any]:
    url = cluster.new_database("soak_history")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("set pgq.notify = off")
        for _ in range(BACKLOG // 10_000):
            conn.execute("select q.enqueue_many('backlog', %s)", (Jsonb([{"n": i} for i in range(10_000)]),))
        conn.execute("select q.enqueue_many('other', %s)", (Jsonb(list(range(5_000))),))
        started = time.monotonic()
        # Set-based, as superuser: half finished an hour ago, half past the 7-day retention.
        conn.execute(
            "insert into q_data.job_history (id, queue_id, state, payload, priority, attempt, run_at, finished_at)"
            " select 100000000 + i, (select id from q_data.queue where name = 'backlog'), 'completed',"
            "        jsonb_build_object('n', i), 0, 1, now() - interval '9 days',"
            "        now() - case when i %% 2 = 0 then interval '1 hour' else interval '8 days' end"
            "   from generate_series(1, %s) i",
            (HISTORY,),
        )
        conn.execute("vacuum analyze q_data.job_history")
        conn.execute("analyze q_data.job")
        build_s = time.monotonic() - started
        seen = {}
        for n in (1, 10):
            plan, got = claim_plan(conn, "backlog", n)
            steps = shape(plan)
            seen[n] = (got, buffers(plan), steps,
                       any(x.get("Relation Name") == "job_history" for x in nodes(plan)),
                       not sorts_only_claimed_rows(plan))
        reaps = []
        for _ in range(5):
            t0 = time.perf_counter()
            conn.execute("select q.reap()")
            reaps.append(time.perf_counter() - t0)
        left = conn.execute("select count(*) from q_data.job_history").fetchone()[0]
    steps = seen[10][2]
    figures = {
        "history_rows": HISTORY, "backlog": BACKLOG, "build_s": round(build_s, 1), "plan": " > ".join(steps),
        "buffers_claim_1": seen[1][1], "buffers_claim_10": seen[10][1],
        "history_purged_by_5_reaps": HISTORY - left, "slowest_reap_s": round(max(reaps), 3),
    }
    failures = []
    if any(got != n for n, (got, *_rest) in seen.items()):
        failures.append("the claim did not return n jobs")
    if ("Index Scan using job_claim_idx on job" not in steps or any("Seq Scan" in s for s in steps)
            or any(v[4] for v in seen.values())):
        failures.append("the claim plan sorts, scans or skips the claim index")
    if any(v[3] for v in seen.values()):
        failures.append("the claim read q_data.job_history")
    if seen[1][1] >= 100 or seen[10][1] >= 100:
        failures.append("a claim touched 100 buffers or more")
    if max(reaps) >= 1.0 or HISTORY - left != 5 * 1000:
        failures.append("history purge not bounded")
    figures["failures"] = "; ".join(failures) or "none"
    return figures
