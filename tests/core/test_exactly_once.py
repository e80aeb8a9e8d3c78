"""8 worker processes drain 20,000 jobs; an independent ledger, written by
each worker before it completes a job, proves 0 lost, 0 executed twice and
0 completed twice."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

WORKERS = 8
JOBS = 20_000
QUEUE = "exactly-once"


def drain(url: str, worker: int) -> dict[str, int]:
    """Claim batches of 1..10 until the queue is empty; ledger each job, then complete the batch."""
    rng = random.Random(worker)
    claimed = completed = claims = 0
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            rows = conn.execute("select id, token from q.claim(%s, %s)", (QUEUE, rng.randint(1, 10))).fetchall()
            claims += 1
            if not rows:
                break  # the whole backlog was enqueued up front: empty means drained
            ids = [r[0] for r in rows]
            claimed += len(ids)
            # The "execution": one ledger row per job, committed before complete.
            conn.execute("insert into public.ledger (job_id, worker) select unnest(%s::bigint[]), %s", (ids, worker))
            done = conn.execute("select * from q.complete_many(%s, %s)", (ids, [r[1] for r in rows])).fetchall()
            completed += len(done)
    return {"worker": worker, "claimed": claimed, "completed": completed, "claims": claims}


def test_eight_workers_run_20000_jobs_each_exactly_once(
    conn: psycopg.Connection[Any], db_url: str, run_processes: Callable[..., list[Any]]
) -> None:
    conn.execute("create table public.ledger (job_id bigint not null, worker int not null)")
    enqueued: list[int] = []
    for first in range(0, JOBS, 10_000):
        payloads = Jsonb([{"n": n} for n in range(first, first + 10_000)])
        enqueued += [r[0] for r in conn.execute("select q.enqueue_many(%s, %s)", (QUEUE, payloads)).fetchall()]
    assert len(set(enqueued)) == JOBS

    start = time.monotonic()
    results = run_processes(drain, [(db_url, w) for w in range(WORKERS)], timeout=120)
    elapsed = time.monotonic() - start
    print(
        f"\n{JOBS} jobs, {WORKERS} worker processes: {elapsed:.2f} s, {JOBS / elapsed:,.0f} jobs/s "
        f"(claim + ledger + complete_many); per worker: {[r['completed'] for r in results]}"
    )

    ledger = conn.execute("select job_id from public.ledger").fetchall()
    executed = [r[0] for r in ledger]
    duplicates = conn.execute("select job_id, count(*) from public.ledger group by 1 having count(*) > 1").fetchall()
    assert set(enqueued) - set(executed) == set(), "lost jobs"
    assert duplicates == [], "jobs executed more than once"
    assert set(executed) == set(enqueued)
    assert len(executed) == JOBS
    assert sum(r["claimed"] for r in results) == JOBS
    assert sum(r["completed"] for r in results) == JOBS, "complete said true exactly once per job"
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0
    assert conn.execute("select count(*) from q_data.job_history").fetchone()[0] == 0
