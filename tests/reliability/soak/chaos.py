"""Suite 2, SIGKILL chaos: 8 worker processes, 10,000 jobs of 5-50 ms enqueued
at a steady rate, a random worker SIGKILLed and restarted every 2 s (at
least 20 kills). 0 lost; duplicate executions only for jobs whose holder
was killed (at most kills x batch size); every killed worker's claims back
within 2 s; nothing left running 2 s after the last kill."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import psycopg

from .. import books
from ..books import explained_duplicates
from ..workers import Fleet
from .cluster import Cluster
from .load import Producer, held_by, wait_drained, wait_released

WORKERS = 8
JOBS = 10_000
RATE = 220.0  # jobs/s: the producer runs about 45 s, so the kills happen while work flows
KILL_EVERY = 2.0
MIN_KILLS = 20
BATCH = 5  # most jobs a worker holds (claims of up to 5, concurrency 2 + 3 prefetched)
RECLAIM_PROMISE = 2.0


def run(cluster: Cluster, logs: Path) -> dict[str, Any]:
    url = cluster.new_database("soak_chaos")
    rng = random.Random(2)
    with psycopg.connect(url, autocommit=True) as conn:
        books.install(conn)
        conn.execute("select q.configure('chaos', max_crashes => 20)")  # a kill costs crash budget, not the job
    fleet = Fleet(url, logs / "chaos")
    generation = 0

    def start() -> Any:
        nonlocal generation
        generation += 1
        return fleet.start(f"chaos-{generation}", "chaos", concurrency=2, batch_size=BATCH)

    try:
        fleet.wait_ready([start() for _ in range(WORKERS)])
        producer = Producer(url, "chaos", JOBS, RATE)
        producer.start()
        kills: list[dict[str, Any]] = []
        with psycopg.connect(url, autocommit=True) as conn:
            next_kill = time.monotonic() + KILL_EVERY
            while len(kills) < MIN_KILLS or producer.is_alive():
                time.sleep(max(0.0, next_kill - time.monotonic()))
                next_kill += KILL_EVERY
                victim = rng.choice(fleet.live())
                claims = held_by(conn, victim)
                fleet.kill(victim)
                killed_at = time.monotonic()
                replacement = start()
                back = wait_released(conn, claims, killed_at, limit=10 * RECLAIM_PROMISE)
                kills.append({"worker": victim.name, "held": len(claims), "recovered_s": back})
                fleet.wait_ready([replacement])
            last_kill = time.monotonic()
            producer.join(60)
            assert producer.error is None, f"producer failed: {producer.error!r}"
            time.sleep(max(0.0, last_kill + RECLAIM_PROMISE - time.monotonic()))
            orphans = conn.execute(
                "select count(*) from q_data.job j where j.state = 'r' and not exists ("
                "  select from q_data.session s join pg_stat_activity a on a.pid = s.pid"
                "   where s.key = j.owner and a.backend_start = s.backend_start)"
            ).fetchone()[0]
            drain_s = wait_drained(conn, 180)
            fleet.stop_all()
            result = books.audit(conn, producer.committed)
        killed = fleet.killed_pids()
        held_total = sum(k["held"] for k in kills)
        explained = explained_duplicates(result, killed)
        figures = {
            "jobs": result.enqueued, "workers": WORKERS, "kills": len(kills), "restarts": len(kills),
            "claims_held_at_kills": held_total, "lost": result.lost, "unfinished": result.unfinished,
            "dead": result.dead, "duplicate_executions": result.duplicate_executions,
            "duplicates_explained_by_kills": explained, "duplicate_terminal_writes": result.duplicate_terminal_writes,
            "worst_recovery_s": round(max(k["recovered_s"] for k in kills), 3),
            "median_recovery_s": round(sorted(k["recovered_s"] for k in kills)[len(kills) // 2], 3),
            "running_orphans_2s_after_last_kill": orphans, "drain_after_last_kill_s": round(drain_s, 1),
            "worker_db_errors": len(fleet.errors()),
        }
        failures = []
        if result.lost or result.unfinished or result.dead or result.completed_without_execution:
            failures.append("jobs lost, unfinished, dead or completed without running")
        if result.duplicate_terminal_writes:
            failures.append("duplicate terminal writes")
        if result.duplicate_executions != explained or result.duplicate_executions > len(kills) * BATCH:
            failures.append("duplicate executions not explained by kills")
        if figures["worst_recovery_s"] >= RECLAIM_PROMISE or orphans:
            failures.append("a killed worker's claims were not back within 2 s")
        if len(kills) < MIN_KILLS:
            failures.append("fewer than 20 kills")
        figures["failures"] = "; ".join(failures) or "none"
        return figures
    finally:
        fleet.close()
