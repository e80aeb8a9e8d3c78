"""Flow control under chaos: 8 real worker processes on limited queues,
random SIGKILLs and pg_terminate_backend of their sessions, an independent
sampler (own connection, every 10 ms) and a ledger the handlers write in
their own transactions. Proves: running jobs never above the queue's limit
or a key's, no job lost, ordered keys never overlap and run in order, rate
starts never above the bound in any window, and a per-key rate (fc_key_rate)
never above key_rate starts of one key in any key_per window, nor far below it
while the key has a backlog.

Per-key rate starts are judged on the server's clock (clock_timestamp()), in
two ways. The exact one: a trigger this test puts on q_data.key_rate_slot (in the
test's own database) records every stamp a claim commits, i.e. every start of
a key, killed ones included; the windows are checked on those stamps. The
ledger ties them to what ran: each start a handler saw, with claimed_at (the
claim's clock_timestamp() as it began: lease_until - lease) <= its slot's
stamp <= started_at (the handler's first statement, after the claim's
commit), is matched one to one to a stamp of its key inside that interval.
The ledger alone proves no excess either: no key_rate + 1 starts of a key
whose [claimed_at, started_at] all lie inside one key_per window. (Windows on
claimed_at alone, as for fc_rate, are not sound for a key rate: the key's
slot is stamped with the clock q.flow_claim_keyed reads as it begins, a few
ms after lease_until - lease (tens under load, or after a promotion round),
and a key at its rate starts its jobs exactly key_per apart, so that lag can
move starts into the window before: two uses of one slot key_per apart can
show claimed_at less than key_per apart.)

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
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
from key_rate_support import STAMPS, most_in_window
from psycopg.types.json import Jsonb

from .figures import record

HERE = Path(__file__).resolve().parent
SECONDS = float(os.environ.get("PGQ_FLOW_CHAOS_SECONDS", "15"))
GLOBAL_LIMIT, KEY_LIMIT, KEYS, RATE = 5, 2, 12, 40
# fc_key_rate: at most KR_RATE starts of a key per KR_PER seconds, KR_CONCURRENCY at a time.
KR_KEYS, KR_CONCURRENCY, KR_RATE, KR_PER = 4, 3, 4, 1.0
QUEUES = ("fc_global", "fc_keys", "fc_ordered", "fc_rate", "fc_key_rate")
LEDGER = """
create table flow_ledger (
  id bigserial primary key, job_id bigint, attempt int, queue text, key text, seq int, pid int,
  claimed_at timestamptz, started_at timestamptz, finished_at timestamptz);
grant all on flow_ledger, flow_ledger_id_seq to public;
"""
SAMPLE = """
select coalesce(max(c) filter (where queue = 'fc_global'), 0),
       coalesce(max(c) filter (where queue = 'fc_keys'), 0),
       coalesce(max(c) filter (where queue = 'fc_ordered'), 0),
       coalesce(max(c) filter (where queue = 'fc_key_rate'), 0)
  from (select qq.name as queue, j.concurrency_key, count(*) as c
          from q_data.job j join q_data.queue qq on qq.id = j.queue_id
         where j.state = 'r'
         group by 1, 2) x
"""
GLOBAL_RUNNING = (
    "select count(*) from q_data.job j join q_data.queue qq on qq.id = j.queue_id where qq.name = 'fc_global' and "
    "j.state = 'r'"
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
        self.peak = {"global": 0, "key": 0, "ordered": 0, "key_rate": 0}

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stop.is_set():
                _, keys, ordered, key_rate = conn.execute(SAMPLE).fetchone()
                running = conn.execute(GLOBAL_RUNNING).fetchone()[0]
                self.peak["global"] = max(self.peak["global"], running)
                self.peak["key"] = max(self.peak["key"], keys)
                self.peak["ordered"] = max(self.peak["ordered"], ordered)
                self.peak["key_rate"] = max(self.peak["key_rate"], key_rate)
                self.samples += 1
                time.sleep(0.01)


def start_worker(url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "flow_worker.py"), *QUEUES],
        env={**os.environ, "DATABASE_URL": url}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def overlapping_peak(intervals: list[tuple[Any, Any]]) -> int:
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals], key=lambda x: (x[0], x[1]))
    now = peak = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


def most_surely_in_window(starts: list[tuple[Any, Any]], per: float) -> int:
    """The most starts, each known only to lie in [lo, hi], that surely fall in one window of length per.

    For each start's lo: how many starts have lo' >= lo and hi' < lo + per (the window [lo, lo + per)).
    A count above the limit proves an excess whatever the exact times were inside the intervals.
    """
    starts = sorted(starts)
    return max((sum(1 for _, hi2 in starts[i:] if (hi2 - lo).total_seconds() < per)
                for i, (lo, _) in enumerate(starts)), default=0)


def match_starts_to_stamps(starts: list[tuple[Any, Any]], stamps: list[Any]) -> int:
    """How many starts ([lo, hi] intervals) can each have a stamp of its own inside its interval.

    Greedy by the interval's end, each taking the earliest free stamp >= its start: a maximum matching.
    """
    free = sorted(stamps)
    used = [False] * len(free)
    matched = 0
    for lo, hi in sorted(starts, key=lambda s: (s[1], s[0])):
        for k, t in enumerate(free):
            if not used[k] and lo <= t <= hi:
                used[k] = True
                matched += 1
                break
    return matched


def test_limits_hold_under_sigkill_and_terminated_sessions(db_url: str) -> None:
    rng = random.Random(11)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(LEDGER)
        conn.execute(STAMPS)
        conn.execute("select q.configure('fc_global', concurrency => %s, max_crashes => 100)", (GLOBAL_LIMIT,))
        conn.execute("select q.configure('fc_keys', key_concurrency => %s, max_crashes => 100)", (KEY_LIMIT,))
        conn.execute("select q.configure('fc_ordered', ordered => true, max_crashes => 100)")
        conn.execute("select q.configure('fc_rate', rate => %s, per => '1 second', max_crashes => 100)", (RATE,))
        conn.execute("select q.configure('fc_key_rate', key_concurrency => %s, key_rate => %s,"
                     " key_per => make_interval(secs => %s), max_crashes => 100)", (KR_CONCURRENCY, KR_RATE, KR_PER))
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
        # A backlog of about SECONDS at the key rate for every key; jobs long enough (about one
        # running per key) that kills meet some, whose re-runs take slots of their own.
        kr = [{"ms": rng.randint(50, 400), "key": f"kr{i % KR_KEYS}"}
              for i in range(int(KR_KEYS * KR_RATE / KR_PER * SECONDS))]
        conn.execute("select q.enqueue_many('fc_key_rate', %s, concurrency_keys => %s)",
                     (Jsonb(kr), [p["key"] for p in kr]))
        total = conn.execute("select count(*) from q_data.job").fetchone()[0]

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
            while conn.execute("select count(*) from q_data.job").fetchone()[0] and time.monotonic() < drain_until:
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

        left = conn.execute("select count(*) from q_data.job").fetchone()[0]
        print(f"flow chaos: {SECONDS:.0f}s, {total} jobs, {kills} SIGKILLs, {terminations} terminated sessions,"
              f" {sampler.samples} samples, peaks {sampler.peak}, {left} left")
        dead = conn.execute("select count(*) from q_data.job_history where state <> 'completed'").fetchone()[0]
        assert kills >= 3 and terminations >= 1, (kills, terminations)
        assert left == 0 and dead == 0, f"{left} jobs left, {dead} dead of {total}"
        assert sampler.samples > SECONDS * 20
        # The independent sampler: never above a limit.
        assert sampler.peak["global"] <= GLOBAL_LIMIT, sampler.peak
        assert sampler.peak["key"] <= KEY_LIMIT, sampler.peak
        assert sampler.peak["ordered"] <= 1, sampler.peak
        assert sampler.peak["key_rate"] <= KR_CONCURRENCY, sampler.peak

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

        key_rate_reruns = check_key_rate(conn, final)
        record("11", f"flow control chaos ({SECONDS:g} s)", jobs=total, workers=8, kills=kills,
               terminated_sessions=terminations, samples=sampler.samples, peak_global=sampler.peak["global"],
               limit_global=GLOBAL_LIMIT, peak_key=sampler.peak["key"], limit_key=KEY_LIMIT,
               peak_ordered=sampler.peak["ordered"], peak_key_rate_running=sampler.peak["key_rate"],
               violations=0, lost=0, key_rate_reruns=key_rate_reruns)


def check_key_rate(conn: psycopg.Connection[Any], final: list[tuple[Any, ...]]) -> int:
    """fc_key_rate: every key at most KR_RATE starts in any KR_PER window, its backlog run near that rate."""
    queue_id = conn.execute("select id from q_data.queue where name = 'fc_key_rate'").fetchone()[0]
    enqueued = int(KR_KEYS * KR_RATE / KR_PER * SECONDS)
    # None lost (none left, none dead: asserted above for every queue), each completed in a handler.
    assert sum(1 for r in final if r[1] == "fc_key_rate") == enqueued
    # One claim runs once: a (job, attempt) the ledger shows twice ran twice. A job completed in
    # its handler more than once is the at-least-once case (killed before its completion reached
    # the database), each time under a claim of its own.
    twice = conn.execute("select count(*) from (select from flow_ledger where queue = 'fc_key_rate'"
                         " group by job_id, attempt having count(*) > 1) x").fetchone()[0]
    assert twice == 0, f"{twice} claims of fc_key_rate ran twice"
    rerun_done = conn.execute("select count(*) from (select from flow_ledger where queue = 'fc_key_rate'"
                              " and finished_at is not null group by job_id having count(*) > 1) x").fetchone()[0]

    # Each slot: its next use at least key_per after the last (a new slot's last is -infinity).
    early = conn.execute("select key, n, was, used_at from key_rate_stamp where queue_id = %s"
                         " and used_at < was + make_interval(secs => %s)", (queue_id, KR_PER)).fetchall()
    assert not early, f"slots used again within {KR_PER} s: {early[:5]}"
    stamps: dict[str, list[Any]] = {}
    for key, used_at in conn.execute("select key, used_at from key_rate_stamp where queue_id = %s", (queue_id,)):
        stamps.setdefault(key, []).append(used_at)
    starts: dict[str, list[tuple[Any, Any]]] = {}
    for key, claimed_at, started_at in conn.execute(
            "select key, claimed_at, started_at from flow_ledger where queue = 'fc_key_rate'"):
        starts.setdefault(key, []).append((claimed_at, started_at))
    keys = sorted(f"kr{i}" for i in range(KR_KEYS))
    assert sorted(stamps) == sorted(starts) == keys, (sorted(stamps), sorted(starts))

    first = min(min(ts) for ts in stamps.values())
    report = []
    for key in sorted(stamps):
        # Exact: the slot stamps, every committed claim of the key (killed runs too).
        most, at = most_in_window(stamps[key], timedelta(seconds=KR_PER))
        assert most <= KR_RATE, f"{key}: {most} starts within {KR_PER} s from {at}"
        # The ledger alone: starts that surely share a window.
        surely = most_surely_in_window(starts[key], KR_PER)
        assert surely <= KR_RATE, f"{key}: {surely} ledger starts surely within {KR_PER} s"
        # Every start a handler saw took a slot: its own stamp inside [claimed_at, started_at].
        matched = match_starts_to_stamps(starts[key], stamps[key])
        assert matched == len(starts[key]), f"{key}: {len(starts[key]) - matched} starts without a slot stamp"
        # Not starved: while the key had jobs never started (until its last job's first start),
        # its starts per second came near the rate.
        backlog_end = conn.execute(
            "select max(s) from (select min(claimed_at) as s from flow_ledger"
            " where queue = 'fc_key_rate' and key = %s group by job_id) x", (key,)).fetchone()[0]
        span = (backlog_end - first).total_seconds()
        during = sum(1 for t in stamps[key] if t <= backlog_end)
        per_second = during / max(span, KR_PER)
        report.append(f"{key} {most}/{KR_PER:g}s {len(stamps[key])} starts {per_second:.2f}/s")
        assert per_second >= 0.5 * KR_RATE / KR_PER, f"{key}: {per_second:.2f} starts/s over {span:.1f} s"
    reruns = sum(map(len, stamps.values())) - enqueued
    print(f"fc_key_rate: {'; '.join(report)}; {reruns} starts of killed jobs' re-runs,"
          f" {rerun_done} jobs completed in a handler twice")
    return reruns
