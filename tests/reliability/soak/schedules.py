"""Schedule chaos: 6 worker processes (schedule_worker.py, a pgq_client.App
declaring 200 schedules ``every 1 second`` and 6 ``* * * * *`` in six time
zones), a random worker SIGKILLed and replaced every 10 s, PostgreSQL
restarted once with ``pg_ctl restart -m immediate`` half-way. Then every
schedule is paused, the queue drains, and three records are compared:

* the unique rule: q_data.schedule_fire, primary key (schedule, slot);
* the jobs themselves: q_data.job_history (the queue keeps completed jobs), by
  the schedule and slot in their payloads;
* the handlers' own ledger rel_sched.seen (no unique rule; re-runs after a
  kill show up there as extra executions of the same job id).

0 double fires: no (schedule, slot) has two jobs, in either record. 0 missed:
every slot from each schedule's first to the pause has a job (downtime here is
seconds, so every slot is "on time" under every catch-up policy). The three
records hold the same (schedule, slot) set. Also: fire lateness (slot ->
enqueued, slot -> handler start) under this chaos.

The short version runs in `make test` (tests/reliability/test_schedule_chaos.py);
the 3-minute one in `make soak` (suite 12).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from ..workers import Fleet, WorkerProcess
from .cluster import Cluster

WORKERS = 6
TICKS = 200
CRONS = 6
KILL_EVERY = 10.0
SCHEDULE_WORKER = Path(__file__).resolve().parents[1] / "schedule_worker.py"

SETUP = """
create schema rel_sched;
create table rel_sched.seen (
  job_id bigint not null, schedule text not null, slot text not null, pid integer not null,
  at timestamptz not null default clock_timestamp());
select q.configure('sched', keep_completed => true, max_crashes => 100);
"""


def start(fleet: Fleet, name: str) -> WorkerProcess:
    fleet.logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DATABASE_URL": fleet.url, "PYTHONUNBUFFERED": "1"}
    log, out = fleet.logs / f"{name}.log", fleet.logs / f"{name}.out"
    with log.open("wb") as err_file, out.open("wb") as out_file:
        proc = subprocess.Popen([sys.executable, str(SCHEDULE_WORKER), "--name", name, "--ticks", str(TICKS),
                                 "--crons", str(CRONS)], env=env, stdout=out_file, stderr=err_file)
    fleet.processes.append(WorkerProcess(name, proc, log, out))
    return fleet.processes[-1]


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def run(cluster: Cluster, logs: Path, seconds: float = 180.0) -> dict[str, Any]:
    cluster.start()
    url = cluster.new_database("soak_sched")
    rng = random.Random(12)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(SETUP)
    fleet = Fleet(url, logs / "schedules")
    generation = 0

    def fresh() -> WorkerProcess:
        nonlocal generation
        generation += 1
        return start(fleet, f"sched-{generation}")

    kills = 0
    restart_s = None
    try:
        fleet.wait_ready([fresh() for _ in range(WORKERS)], timeout=60)
        began = time.monotonic()
        restart_at = began + seconds / 2
        next_kill = began + KILL_EVERY
        while time.monotonic() - began < seconds:
            time.sleep(0.2)
            now = time.monotonic()
            if restart_s is None and now >= restart_at:
                restart_s = cluster.restart("immediate")
            if now >= next_kill:
                next_kill += KILL_EVERY
                fleet.kill(rng.choice(fleet.live()))
                kills += 1
                replacement = fresh()
                fleet.wait_ready([replacement], timeout=60)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("select q.pause_schedule(name) from q.schedules()")
            paused_at = conn.execute("select clock_timestamp()").fetchone()[0]  # type: ignore[index]
            deadline = time.monotonic() + 120
            while conn.execute("select count(*) from q_data.job").fetchone()[0]:  # type: ignore[index]
                assert time.monotonic() < deadline, "the fired jobs did not drain within 120 s"
                time.sleep(0.5)
            fleet.stop_all()
            figures = audit(conn, paused_at)
    finally:
        fleet.close()
    figures.update({"workers": WORKERS, "schedules": TICKS + CRONS, "kills": kills,
                    "pg_restarts": 1 if restart_s is not None else 0,
                    "restart_s": round(restart_s or 0.0, 2), "run_s": seconds})
    failures = []
    if figures["double_fires_ledger"] or figures["double_fires_jobs"] or figures["double_fires_seen"]:
        failures.append("double fires")
    if figures["missed_slots"]:
        failures.append(f"{figures['missed_slots']} missed slots")
    if not figures["records_agree"]:
        failures.append("the three records disagree")
    if figures["stalled_schedules"]:
        failures.append(f"{figures['stalled_schedules']} schedules stopped firing before the pause")
    figures["failures"] = "; ".join(failures) or "none"
    return figures


def audit(conn: psycopg.Connection[Any], paused_at: Any) -> dict[str, Any]:
    def one(query: str, *params: Any) -> Any:
        return conn.execute(query, params).fetchone()[0]  # type: ignore[index]

    conn.execute("""
        create temp table fired_jobs as
          select h.id, h.payload->>'schedule' as schedule, h.payload->>'slot' as slot, h.run_at
            from q_data.job_history h where h.state = 'completed' and h.payload ? 'slot';
        create temp table ledger as
          select s.name as schedule,
                 to_char(f.slot at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as slot, f.job_id
            from q_data.schedule_fire f join q_data.schedule s on s.id = f.schedule_id;
        -- Every slot each schedule should have fired: from its first slot after
        -- creation to its last slot before the pause.
        create temp table expected as
          select s.name as schedule, to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as slot
            from q_data.schedule s,
                 generate_series(q.next_slot(s.spec, s.every, s.timezone, s.created_at),
                                 -- (the pause may land just before a due slot's reap: such a
                                 -- slot is not missed; stalled_schedules catches real stops)
                                 least(q.prev_slot(s.spec, s.every, s.timezone, s.updated_at), s.last_slot),
                                 coalesce(s.every, interval '1 minute')) t;
    """)
    def doubles(table: str, jobs: str = "count(*)") -> int:
        return int(one(f"select count(*) from (select 1 from {table} group by schedule, slot"
                       f" having {jobs} > 1) d"))

    def differ(a: str, b: str) -> int:
        return int(one(f"select count(*) from (select schedule, slot from {a}"
                       f" except select schedule, slot from {b}) x"))

    fires = one("select count(*) from ledger")
    pairs = [("ledger", "fired_jobs"), ("fired_jobs", "ledger"), ("fired_jobs", "rel_sched.seen"),
             ("rel_sched.seen", "fired_jobs")]
    other_job = one("select count(*) from ledger l join fired_jobs j using (schedule, slot) where l.job_id <> j.id")
    figures = {
        "fires": fires,
        "double_fires_ledger": doubles("ledger"),
        "double_fires_jobs": doubles("fired_jobs"),
        "double_fires_seen": doubles("rel_sched.seen", "count(distinct job_id)"),
        "executions": one("select count(*) from rel_sched.seen"),
        "reruns_after_kills": one("select count(*) - count(distinct job_id) from rel_sched.seen"),
        "expected_slots": one("select count(*) from expected"),
        "missed_slots": one("select count(*) from (select schedule, slot from expected except"
                            " select schedule, slot from fired_jobs) m"),
        "records_agree": all(differ(a, b) == 0 for a, b in pairs) and other_job == 0,
        "stalled_schedules": one("select count(*) from q_data.schedule s where s.every is not null"
                                 " and s.last_slot < %s - interval '3 seconds'", paused_at),
    }
    enqueue_lateness = [r[0] for r in conn.execute(
        "select extract(epoch from j.run_at - j.slot::timestamptz)::float8 from fired_jobs j")]
    start_lateness = [r[0] for r in conn.execute(
        "select extract(epoch from min(s.at) - s.slot::timestamptz)::float8"
        " from rel_sched.seen s group by s.job_id, s.slot")]
    figures.update({
        "enqueue_late_p50_s": round(percentile(enqueue_lateness, 50), 3),
        "enqueue_late_p99_s": round(percentile(enqueue_lateness, 99), 3),
        "start_late_p50_s": round(percentile(start_lateness, 50), 3),
        "start_late_p99_s": round(percentile(start_lateness, 99), 3),
        "start_late_max_s": round(max(start_lateness, default=float("nan")), 3),
    })
    return figures
