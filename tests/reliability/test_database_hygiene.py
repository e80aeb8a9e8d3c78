"""Suite 9: database hygiene. A running Worker never holds a transaction
open longer than a statement; the claim q.claim really runs (auto_explain,
ANALYZE, BUFFERS) reads the partial claim index with no sort and no
sequential scan on a 50,000-job backlog, and reads fewer than 100 buffers
with 200,000 finished jobs in the history (1.8 million: `make soak`); and
lock_timeout / statement_timeout set on the worker's role are honoured and
retried by the Worker, with nothing lost."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Jsonb

from .books import audit
from .figures import record
from .plans import buffers, claim_plan, nested_plans, nodes, shape, sorts_only_claimed_rows, writes_job
from .workers import Fleet

# Transactions under 1 s, lock waits under 1.5 s:
# CPU contention from tests running beside it could break that (make test runs serial tests alone).
pytestmark = pytest.mark.serial

STATEMENT_BOUND = 1.0  # seconds: jobs sleep 1.2-2 s, so a transaction held across one shows up


def enqueue(conn: psycopg.Connection[Any], queue: str, payloads: list[Any]) -> list[int]:
    ids: list[int] = []
    for first in range(0, len(payloads), 10_000):
        chunk = Jsonb(payloads[first:first + 10_000])
        ids += [r[0] for r in conn.execute("select q.enqueue_many(%s, %s)", (queue, chunk)).fetchall()]
    return ids


def drain(conn: psycopg.Connection[Any], fleet: Fleet, limit: float) -> None:
    deadline = time.monotonic() + limit
    while conn.execute("select exists (select from q_data.job)").fetchone()[0]:
        assert time.monotonic() < deadline, "the workers did not drain the queue"
        assert all(w.alive() for w in fleet.processes), "a worker process died"
        time.sleep(0.1)


class ActivityWatch:
    """Samples pg_stat_activity for pgq worker sessions: the oldest open transaction and lock waits seen."""

    def __init__(self, url: str, app_like: str = "pgq-%") -> None:
        self.url = url
        self.app_like = app_like
        self.longest_xact = 0.0
        self.longest_lock_wait = 0.0
        self.idle_in_transaction = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ActivityWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        dbname = conninfo_to_dict(self.url).get("dbname")
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self._stop.is_set():
                rows = conn.execute(
                    "select extract(epoch from clock_timestamp() - xact_start), state,"
                    "       case when wait_event_type = 'Lock'"
                    "            then extract(epoch from clock_timestamp() - state_change) end"
                    "  from pg_stat_activity"
                    " where datname = %s and application_name like %s and pid <> pg_backend_pid()",
                    (dbname, self.app_like),
                ).fetchall()
                self.samples += 1
                for age, state, waited in rows:
                    if age is not None:
                        self.longest_xact = max(self.longest_xact, float(age))
                    if state == "idle in transaction":
                        self.idle_in_transaction += 1
                    if waited is not None:
                        self.longest_lock_wait = max(self.longest_lock_wait, float(waited))
                time.sleep(0.01)


def test_a_running_worker_never_holds_a_transaction_open_longer_than_a_statement(books: str, fleet: Fleet) -> None:
    workers = [fleet.start(f"hygiene-{i}", "hygiene", concurrency=4) for i in range(2)]
    fleet.wait_ready(workers)
    with psycopg.connect(books, autocommit=True) as conn, ActivityWatch(books) as watch:
        ids = enqueue(conn, "hygiene", [{"n": i, "ms": 1200 + (i * 97) % 800} for i in range(24)])
        drain(conn, fleet, 60)
        fleet.stop_all()
        result = audit(conn, ids)
    result.assert_exactly_once()
    assert watch.samples > 100
    assert watch.longest_xact < STATEMENT_BOUND, f"a worker session held a transaction {watch.longest_xact:.3f} s"
    record("9", "no transaction spans a job", jobs=len(ids), job_s="1.2-2.0", samples=watch.samples,
           longest_worker_transaction_s=round(watch.longest_xact, 3),
           idle_in_transaction_samples=watch.idle_in_transaction)


@pytest.mark.parametrize("analyzed", [False, True], ids=["fresh-statistics", "after-analyze"])
def test_the_claim_really_run_reads_the_partial_index_without_sort_or_seq_scan_and_under_100_buffers(
    conn: psycopg.Connection[Any], analyzed: bool
) -> None:
    conn.execute("set pgq.notify = off")
    enqueue(conn, "backlog", [{"n": i} for i in range(50_000)])
    enqueue(conn, "other", [{"n": i} for i in range(5_000)])
    # 200,000 finished jobs in the history, set-based (the soak suite does 1.8 million).
    conn.execute(
        "insert into q_data.job_history (id, queue_id, state, payload, priority, attempt, run_at, finished_at)"
        " select 10000000 + i, (select id from q_data.queue where name = 'backlog'), 'completed', '{}', 0, 1,"
        "        now() - interval '1 day', now() - interval '1 hour' from generate_series(1, 200000) i"
    )
    if analyzed:
        conn.execute("analyze q_data.job")
        conn.execute("analyze q_data.job_history")
    seen = {}
    for n in (1, 10):
        plan, got = claim_plan(conn, "backlog", n)
        assert got == n
        steps = shape(plan)
        assert "Index Scan using job_claim_idx on job" in steps, steps
        assert not [s for s in steps if "Seq Scan" in s], steps
        # The one Sort puts the claimed rows (at most n) in claim order: its input is the CTE of
        # the UPDATE, never the queue.
        assert sorts_only_claimed_rows(plan), steps
        assert not [x for x in nodes(plan) if x.get("Relation Name") == "job_history"], "the claim read history"
        seen[n] = buffers(plan)
        assert seen[n] < 100, f"a claim of {n} touched {seen[n]} buffers: {steps}"
    record("9", f"claim plan ({'analyzed' if analyzed else 'fresh statistics'})", backlog=50_000,
           history_rows=200_000, plan=" > ".join(shape(plan)), buffers_claim_1=seen[1], buffers_claim_10=seen[10])


def test_batch_completes_and_releases_probe_the_running_index_per_id_when_analyze_saw_no_running_job(
    conn: psycopg.Connection[Any],
) -> None:
    # ANALYZE while jobs wait and none runs: statistics on state would then
    # say "nothing runs", and the batch functions hash-joined their ids
    # against a full scan of job_running_idx (cost growing with every claim).
    conn.execute("set pgq.notify = off")
    enqueue(conn, "batch", [{"n": i} for i in range(20_000)])
    conn.execute("analyze q_data.job")
    # Other workers' claims in flight, and finished ones not yet vacuumed.
    for _ in range(20):
        done = conn.execute("select id, token from q.claim('batch', 50)").fetchall()
        conn.execute("select q.complete_many(%s, %s)", ([d[0] for d in done], [d[1] for d in done]))
    conn.execute("select id from q.claim('batch', 1000)")
    for function in ("complete_many", "release_many"):
        held = conn.execute("select id, token from q.claim('batch', 50)").fetchall()
        plans, got = nested_plans(conn, f"select * from q.{function}(%s, %s)",
                                  ([h[0] for h in held], [h[1] for h in held]))
        assert got == 50, function
        writes = [p for p in plans if writes_job(p)]
        assert len(writes) == 1, function
        steps = [shape(p) for p in plans]
        running = [x for p in plans for x in nodes(p) if x.get("Index Name") == "job_running_idx"]
        assert running, f"{function} never used the running index: {steps}"
        assert all("Index Cond" in x for x in running), f"{function} scanned the whole running index: {steps}"
        assert all(int(x["Actual Rows"]) <= 1 for x in running), f"{function} probed more than one id at a time"
        assert "Seq Scan on job" not in sum(steps, []), steps
        touched = sum(buffers(p) for p in plans if writes_job(p))
        assert touched < 600, f"{function} touched {touched} buffers: {steps}"


@pytest.fixture
def worker_role(conn: psycopg.Connection[Any], books: str) -> Any:
    """A login role in pgq_worker whose URL the worker processes use; its settings are changed per test."""
    name = f"rel_timeouts_{int(time.time() * 1000) % 10**8}"
    conn.execute(f"create role {name} login in role pgq_worker")
    params = {**conninfo_to_dict(books), "user": name}
    yield name, " ".join(f"{k}={v}" for k, v in params.items())
    conn.execute(f"drop owned by {name}")
    conn.execute(f"drop role {name}")


@pytest.mark.parametrize(
    ("setting", "sqlstate_text"),
    [("lock_timeout = '200ms'", "lock timeout"), ("statement_timeout = '300ms'", "statement timeout")],
    ids=["lock_timeout", "statement_timeout"],
)
def test_timeouts_set_on_the_worker_role_are_honoured_and_the_worker_retries_without_losing_a_job(
    conn: psycopg.Connection[Any], fleet: Fleet, worker_role: tuple[str, str], setting: str, sqlstate_text: str,
    db_url: str,
) -> None:
    role, url = worker_role
    conn.execute(f"alter role {role} set {setting}")
    workers = [fleet.start(f"timeouts-{i}", "timeouts", concurrency=2, url=url, poll_interval=0.2) for i in range(2)]
    fleet.wait_ready(workers)
    with ActivityWatch(db_url, "pgq-%") as watch:
        ids = enqueue(conn, "timeouts", [{"n": i, "ms": 20} for i in range(300)])
        time.sleep(0.3)  # work under way
        with psycopg.connect(db_url) as blocker:  # an admin holds q_data.job for 2.5 s
            blocker.execute("lock table q_data.job in access exclusive mode")
            time.sleep(2.5)
            blocker.rollback()
        drain(conn, fleet, 60)
        fleet.stop_all()
    result = audit(conn, ids)

    result.assert_exactly_once()
    assert fleet.errors() == [], "an error the worker does not retry"
    retried = [e for w in workers for e in w.events() if e.get("event") == "db_unavailable"]
    assert any(sqlstate_text in e.get("error", "") for e in retried), retried
    assert watch.longest_lock_wait < 1.5, f"a worker waited {watch.longest_lock_wait:.2f} s on a lock"
    record("9", f"{setting.split()[0]} on the worker role", jobs=len(ids), blocked_s=2.5,
           retried_errors=len(retried), longest_lock_wait_s=round(watch.longest_lock_wait, 3),
           lost=result.lost, duplicate_executions=result.duplicate_executions)

