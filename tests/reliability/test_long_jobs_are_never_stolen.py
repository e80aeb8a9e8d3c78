"""Suite 4: long jobs are never stolen. With a 3 s lease and heartbeats, a
20 s job is never reclaimed; with heartbeats stopped (the worker process
frozen by SIGSTOP, its session alive) it is reclaimed only after the lease;
with the worker SIGKILLed it is reclaimed within 2 s. Every worker here is a
real pgq_client.Worker process, and they reap each other's claims."""

from __future__ import annotations

import signal
import time
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from .books import audit
from .figures import record
from .workers import Fleet, WorkerProcess

LEASE = 3.0
RECLAIM_PROMISE = 2.0  # seconds from a SIGKILL until the job is claimable again
REAP_SLACK = 2.0  # after the lease ends, the next reaper turn (about 1 s apart) returns it


def enqueue(conn: psycopg.Connection[Any], queue: str, payload: dict[str, Any]) -> int:
    return int(conn.execute("select q.enqueue(%s, %s)", (queue, Jsonb(payload))).fetchone()[0])


def claim_row(conn: psycopg.Connection[Any], job_id: int) -> tuple[Any, ...] | None:
    """(state, token, attempt, crashes, lease_until, db clock) of the job, or None once it finished."""
    return conn.execute(
        "select state, token, attempt, crashes, lease_until, clock_timestamp() from q_data.job where id = %s", (job_id,)
    ).fetchone()


def wait_started(conn: psycopg.Connection[Any], job_id: int, worker: WorkerProcess, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not conn.execute(
        "select exists (select from rel.execution where job_id = %s and pid = %s and phase = 'start')",
        (job_id, worker.pid),
    ).fetchone()[0]:
        assert worker.alive(), worker.log.read_text()[-2000:]
        assert time.monotonic() < deadline, "the job did not start"
        time.sleep(0.02)


def wait_finished(conn: psycopg.Connection[Any], job_id: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while claim_row(conn, job_id) is not None:
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.05)


def runs(conn: psycopg.Connection[Any], job_id: int) -> list[tuple[int, int, str]]:
    return conn.execute(
        "select pid, attempt, phase from rel.execution where job_id = %s order by at", (job_id,)
    ).fetchall()


def test_a_20_second_job_with_a_3_second_lease_and_heartbeats_is_never_reclaimed(
    books: str, fleet: Fleet
) -> None:
    holder = fleet.start("holder", "long", concurrency=1, lease=LEASE)
    fleet.wait_ready([holder])
    with psycopg.connect(books, autocommit=True) as conn:
        job_id = enqueue(conn, "long", {"ms": 20_000})
        wait_started(conn, job_id, holder)
        reaper = fleet.start("reaper", "long", concurrency=1, lease=LEASE)  # a peer taking reaper turns
        fleet.wait_ready([reaper])

        first = claim_row(conn, job_id)
        assert first is not None
        leases: set[datetime] = set()
        reaped = 0
        while (row := claim_row(conn, job_id)) is not None:
            state, token, attempt, crashes, lease_until, now = row
            assert (state, token, attempt, crashes) == ("r", first[1], 1, None), "the claim changed hands"
            assert lease_until > now, "the lease ran out while the job was running"
            leases.add(lease_until)
            reaped += conn.execute("select q.reap()").fetchone()[0]  # and the test reaps too, 4x a second
            time.sleep(0.25)
        fleet.stop_all()
        result = audit(conn, [job_id])

    assert reaped == 0
    assert runs_of_holder_only(books, job_id, holder.pid)
    result.assert_exactly_once()
    assert len(leases) >= 10, f"the lease was renewed only {len(leases) - 1} times in 20 s"
    record("4", "heartbeats on", lease_s=LEASE, job_s=20, lease_renewals=len(leases) - 1, reclaimed=0,
           executions=result.executed, duplicate_executions=result.duplicate_executions)


def runs_of_holder_only(url: str, job_id: int, pid: int) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        return runs(conn, job_id) == [(pid, 1, "start"), (pid, 1, "done")]


def test_a_frozen_worker_whose_session_lives_loses_its_job_only_after_the_lease(books: str, fleet: Fleet) -> None:
    holder = fleet.start("frozen", "frozen", concurrency=1, lease=LEASE)
    fleet.wait_ready([holder])
    with psycopg.connect(books, autocommit=True) as conn:
        job_id = enqueue(conn, "frozen", {"ms": 4000, "ms_retry": 100})
        wait_started(conn, job_id, holder)
        peer = fleet.start("peer", "frozen", concurrency=1, lease=LEASE)
        fleet.wait_ready([peer])

        holder.proc.send_signal(signal.SIGSTOP)  # heartbeats stop; its connections stay open
        try:
            time.sleep(0.3)  # a heartbeat already on the wire lands
            row = claim_row(conn, job_id)
            assert row is not None
            _, token, _, _, lease_end, _ = row
            while (row := claim_row(conn, job_id)) is not None and row[1] == token:
                time.sleep(0.01)
            reclaimed_at = row[5] if row is not None else conn.execute("select clock_timestamp()").fetchone()[0]
            lost = conn.execute(
                "select e from q_data.job j, jsonb_array_elements(j.errors) e where j.id = %s"
                " union all select e from q_data.job_history h, jsonb_array_elements(h.errors) e where h.id = %s",
                (job_id, job_id),
            ).fetchall()
        finally:
            holder.proc.send_signal(signal.SIGCONT)
        wait_finished(conn, job_id, 30)
        time.sleep(LEASE)  # the thawed holder finishes its sleep and tries to complete
        fleet.stop_all()
        result = audit(conn, [job_id])
        history = runs(conn, job_id)

    after_lease = (reclaimed_at - lease_end).total_seconds()
    assert len(lost) == 1 and "lease" in lost[0][0]["error"], lost
    lost_at = datetime.fromisoformat(lost[0][0]["at"])
    assert lost_at >= lease_end, f"reclaimed {(lease_end - lost_at).total_seconds():.3f} s before the lease ended"
    assert after_lease < REAP_SLACK, f"reclaimed {after_lease:.2f} s after the lease ended"
    # The peer ran it as attempt 2 and its result counts; the holder's late result was refused.
    assert (peer.pid, 2, "done") in history
    assert result.duplicate_terminal_writes == 0 and result.lost == 0 and result.completed == 1
    refused = [e for e in holder.events() if e.get("event") == "job_lost"]
    assert len(refused) == 1 and refused[0]["job_id"] == job_id, holder.events()
    record("4", "heartbeats stopped, session alive", lease_s=LEASE,
           reclaimed_after_lease_end_s=round(after_lease, 3), duplicate_executions=result.duplicate_executions,
           duplicate_terminal_writes=result.duplicate_terminal_writes, stale_result_refused=len(refused))


def test_a_sigkilled_workers_long_job_is_reclaimed_by_a_peer_within_2_seconds(books: str, fleet: Fleet) -> None:
    holder = fleet.start("killed", "killed", concurrency=1)  # default lease: 5 minutes, so only
    fleet.wait_ready([holder])  # the session evidence can bring the job back this soon
    with psycopg.connect(books, autocommit=True) as conn:
        conn.execute("select q.configure('killed', keep_completed => true)")
        job_id = enqueue(conn, "killed", {"ms": 60_000, "ms_retry": 100})
        wait_started(conn, job_id, holder)
        peer = fleet.start("peer", "killed", concurrency=1)
        fleet.wait_ready([peer])
        token = claim_row(conn, job_id)[1]

        fleet.kill(holder)
        killed = time.monotonic()
        while (row := claim_row(conn, job_id)) is not None and row[1] == token:
            time.sleep(0.01)
        reclaimed = time.monotonic() - killed
        wait_finished(conn, job_id, 30)
        fleet.stop_all()
        result = audit(conn, [job_id])
        history = runs(conn, job_id)
        finished = conn.execute("select state, attempt, crashes, errors from q_data.job_history where id = "
                                "%s", (job_id,))
        state, attempt, crashes, errors = finished.fetchone()

    assert (state, attempt, crashes) == ("completed", 2, 1)
    assert [e["error"] for e in errors] == ["claim lost (worker session ended)"], "not the lease: the session"
    assert reclaimed < RECLAIM_PROMISE, f"reclaimed {reclaimed:.2f} s after SIGKILL"
    assert history == [(holder.pid, 1, "start"), (peer.pid, 2, "start"), (peer.pid, 2, "done")]
    result.assert_exactly_once()
    record("4", "worker SIGKILLed", reclaimed_after_kill_s=round(reclaimed, 3), kills=1, lost=result.lost,
           duplicate_executions=result.duplicate_executions)
