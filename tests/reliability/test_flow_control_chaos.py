"""Flow control under chaos: 8 real worker processes on limited queues,
random SIGKILLs and pg_terminate_backend of their sessions, an independent
sampler (own connection, every 10 ms) and a ledger the handlers write in
their own transactions. Proves: running jobs never above the queue's limit
or a key's, no job lost, ordered keys never overlap and run in order, rate
starts never above the bound in any window.

PGQ_FLOW_CHAOS_SECONDS sets the chaos phase (15 s in make test; `make soak`
runs it for 60 s)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

HERE = Path(__file__).resolve().parent
SECONDS = float(os.environ.get("PGQ_FLOW_CHAOS_SECONDS", "15"))
GLOBAL_LIMIT, KEY_LIMIT, KEYS, RATE = 5, 2, 12, 40
LEDGER = """
create table flow_ledger (
  id bigserial primary key, job_id bigint, attempt int, queue text, key text, seq int, pid int,
  claimed_at timestamptz, started_at timestamptz, finished_at timestamptz);
grant all on flow_ledger, flow_ledger_id_seq to public;
"""
SAMPLE = """
select coalesce(max(c) filter (where queue = 'fc_global'), 0),
       coalesce(max(c) filter (where queue = 'fc_keys'), 0),
       coalesce(max(c) filter (where queue = 'fc_ordered'), 0)
  from (select qq.name as queue, j.concurrency_key, count(*) as c
          from q.job j join q.queue qq on qq.id = j.queue_id
         where j.state = 'r'
         group by 1, 2) x
"""
GLOBAL_RUNNING = (
    "select count(*) from q.job j join q.queue qq on qq.id = j.queue_id where qq.name = 'fc_global' and j.state = 'r'"
)
# A worker's sessions are named pgq-<role>:<worker name> (the ledger's are not).
TERMINATE_ONE = (
    "select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity"
    " where application_name like 'pgq-%%:flow-%%' and datname = current_database()"
    " order by random() limit 1) x"
)


class Sampler(threading.Thread):
    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.stop, self.samples = url, threading.Event(), 0
        self.peak = {"global": 0, "key": 0, "ordered": 0}

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stop.is_set():
                _, keys, ordered = conn.execute(SAMPLE).fetchone()
                running = conn.execute(GLOBAL_RUNNING).fetchone()[0]
                self.peak["global"] = max(self.peak["global"], running)
                self.peak["key"] = max(self.peak["key"], keys)
                self.peak["ordered"] = max(self.peak["ordered"], ordered)
                self.samples += 1
                time.sleep(0.01)


def start_worker(url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "flow_worker.py"), "fc_global", "fc_keys", "fc_ordered", "fc_rate"],
        env={**os.environ, "DATABASE_URL": url}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def overlapping_peak(intervals: list[tuple[Any, Any]]) -> int:
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals], key=lambda x: (x[0], x[1]))
    now = peak = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


def test_limits_hold_under_sigkill_and_terminated_sessions(db_url: str) -> None:
    rng = random.Random(11)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(LEDGER)
        conn.execute("select q.configure('fc_global', concurrency => %s, max_crashes => 100)", (GLOBAL_LIMIT,))
        conn.execute("select q.configure('fc_keys', key_concurrency => %s, max_crashes => 100)", (KEY_LIMIT,))
        conn.execute("select q.configure('fc_ordered', ordered => true, max_crashes => 100)")
        conn.execute("select q.configure('fc_rate', rate => %s, per => '1 second', max_crashes => 100)", (RATE,))
        per_second = int(SECONDS * 12)
        plain = [{"ms": rng.randint(10, 60)} for _ in range(per_second * 2)]
        conn.execute("select q.enqueue_many('fc_global', %s)", (Jsonb(plain),))
        keyed = [{"ms": rng.randint(5, 40), "key": f"k{i % KEYS}"} for i in range(per_second * 2)]
        conn.execute("select q.enqueue_many('fc_keys', %s, concurrency_keys => %s)",
                     (Jsonb(keyed), [p["key"] for p in keyed]))
        for seq in range(per_second):
            key = f"acct{seq % KEYS}"
            conn.execute("select q.enqueue('fc_ordered', %s, concurrency_key => %s)",
                         (Jsonb({"ms": rng.randint(5, 30), "key": key, "seq": seq}), key))
        conn.execute("select q.enqueue_many('fc_rate', %s)", (Jsonb([{"ms": 1} for _ in range(int(RATE * SECONDS))]),))
        total = conn.execute("select count(*) from q.job").fetchone()[0]

        sampler = Sampler(db_url)
        sampler.start()
        workers = [start_worker(db_url) for _ in range(8)]
        kills = terminations = 0
        deadline = time.monotonic() + SECONDS
        try:
            while time.monotonic() < deadline:
                time.sleep(rng.uniform(0.3, 1.2))
                events = kills + terminations
                if events % 4 != 3:
                    victim = rng.randrange(len(workers))
                    workers[victim].send_signal(signal.SIGKILL)
                    workers[victim].wait()
                    workers[victim] = start_worker(db_url)
                    kills += 1
                else:
                    terminations += max(1, conn.execute(TERMINATE_ONE).fetchone()[0])
            # Drain: no more chaos; the reaper returns what the victims held.
            drain_until = time.monotonic() + 120
            while conn.execute("select count(*) from q.job").fetchone()[0] and time.monotonic() < drain_until:
                time.sleep(0.2)
        finally:
            for w in workers:
                w.send_signal(signal.SIGTERM)
            for w in workers:
                try:
                    w.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    w.kill()
            sampler.stop.set()
            sampler.join(timeout=10)

        left = conn.execute("select count(*) from q.job").fetchone()[0]
        print(f"flow chaos: {SECONDS:.0f}s, {total} jobs, {kills} SIGKILLs, {terminations} terminated sessions,"
              f" {sampler.samples} samples, peaks {sampler.peak}, {left} left")
        dead = conn.execute("select count(*) from q.job_history where state <> 'completed'").fetchone()[0]
        assert kills >= 3 and terminations >= 1, (kills, terminations)
        assert left == 0 and dead == 0, f"{left} jobs left, {dead} dead of {total}"
        assert sampler.samples > SECONDS * 20
        # The independent sampler: never above a limit.
        assert sampler.peak["global"] <= GLOBAL_LIMIT, sampler.peak
        assert sampler.peak["key"] <= KEY_LIMIT, sampler.peak
        assert sampler.peak["ordered"] <= 1, sampler.peak

        # The ledger: the attempt that completed (each job's last) ran inside its claim.
        final = conn.execute("""
            select distinct on (job_id) job_id, queue, key, seq, started_at, finished_at
              from flow_ledger where finished_at is not null
             order by job_id, attempt desc, id desc""").fetchall()
        assert len(final) == total, "every job has a completed run in the ledger"
        runs: dict[tuple[str, Any], list[tuple[Any, Any, Any]]] = {}
        for _, queue, key, seq, start, end in final:
            runs.setdefault((queue, key if queue != "fc_global" else None), []).append((start, end, seq))
        assert overlapping_peak([(s, e) for s, e, _ in runs[("fc_global", None)]]) <= GLOBAL_LIMIT
        for (queue, key), rows in runs.items():
            if queue == "fc_keys":
                assert overlapping_peak([(s, e) for s, e, _ in rows]) <= KEY_LIMIT, key
            if queue == "fc_ordered":
                rows.sort()
                assert [seq for _, _, seq in rows] == sorted(seq for _, _, seq in rows), f"{key} ran out of order"
                assert all(a[1] <= b[0] for a, b in zip(rows, rows[1:], strict=False)), f"{key} overlapped"
        # Rate: every claim the ledger saw (crashed ones too), any 1 s window.
        claims = [r[0] for r in conn.execute(
            "select distinct on (job_id, attempt) claimed_at from flow_ledger where queue = 'fc_rate'"
            " order by job_id, attempt, claimed_at").fetchall()]
        claims.sort()
        j = 0
        for i, t in enumerate(claims):
            while (t - claims[j]).total_seconds() >= 1.0:
                j += 1
            assert i - j + 1 <= RATE, f"{i - j + 1} starts within 1 s at {t}"
