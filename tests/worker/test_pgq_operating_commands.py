"""`pgq stats/explain/health/throughput` and the bulk admin commands, run as a subprocess."""

from __future__ import annotations

import os
import subprocess

import psycopg
import pytest
from worker_support import PGQ, scalar


def pgq(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "COLUMNS": "200"}
    return subprocess.run([PGQ, *args], env=env, capture_output=True, text=True, timeout=60)


def dead_jobs(url: str, queue: str, errors: list[str]) -> list[int]:
    with psycopg.connect(url, autocommit=True) as conn:
        ids = [r[0] for r in conn.execute("select q.enqueue(%s, '{}', max_attempts => 1) from generate_series(1, %s)",
                                          (queue, len(errors))).fetchall()]
        for error in errors:
            conn.execute("select q.fail(id, token, %s) from q.claim(%s)", (error, queue))
    return ids


def test_explain_health_stats_and_throughput_commands(db_url: str) -> None:
    (dead,) = dead_jobs(db_url, "mail", ["SMTPError: 550 mailbox full"])
    shown = pgq(db_url, "explain", str(dead))
    assert shown.returncode == 0 and "dead" in shown.stdout and "550 mailbox full" in shown.stdout, shown.stderr
    unknown = pgq(db_url, "explain", "987654321")
    assert unknown.returncode == 0 and "unknown" in unknown.stdout

    health = pgq(db_url, "health", "--all")
    assert health.returncode == 0 and "xmin_horizon" in health.stdout and "q_data.job" in health.stdout, health.stderr
    stats = pgq(db_url, "stats", "--once")
    assert stats.returncode == 0 and "mail" in stats.stdout
    tp = pgq(db_url, "throughput", "--minutes", "5")
    assert tp.returncode == 0 and "mail" in tp.stdout, tp.stderr


def test_health_exits_1_on_a_critical_finding(db_url: str) -> None:
    with psycopg.connect(db_url) as idler:  # not autocommit: left open with an xid
        idler.execute("select pg_current_xact_id()")
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("alter table q_data.job set (autovacuum_enabled = off)")
        ok = pgq(db_url, "health")
        assert ok.returncode == 0 and "warning" in ok.stdout and "pg_terminate_backend" in ok.stdout, ok.stdout
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("insert into q_data.queue (name) values ('churn')")
            conn.execute("insert into q_data.job (queue_id, payload, run_at) select (select id from q_data.queue"
                         " where name = 'churn'), '{}', now() from generate_series(1, 30000)")
            conn.execute("delete from q_data.job")
        idler.rollback()
    for _ in range(100):  # the deleting backend's statistics arrive when it exits
        bad = pgq(db_url, "health")
        if bad.returncode == 1:
            break
    assert bad.returncode == 1 and "critical" in bad.stdout, bad.stdout


def test_bulk_commands_count_bound_and_need_yes(db_url: str) -> None:
    dead_jobs(db_url, "bulk", ["timeout", "timeout", "ValueError"])
    some = pgq(db_url, "retry-dead", "bulk", "--error", "TIMEOUT", "--max-rows", "1")
    assert some.returncode == 0 and "retried 1 dead job(s) of bulk; more match" in some.stdout, some.stderr
    rest = pgq(db_url, "retry-dead", "bulk", "--all", "--max-rows", "1")
    assert rest.returncode == 0 and "retried 2 dead job(s) of bulk" in rest.stdout and "more" not in rest.stdout
    assert scalar(db_url, "select count(*) from q_data.job where state = 'w'") == 3

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("""select q.enqueue('bulk', '{"tenant": 7}') from generate_series(1, 4)""")
    cancelled = pgq(db_url, "cancel-jobs", "bulk", "--payload", '{"tenant": 7}', "--max-rows", "3", "--all")
    assert cancelled.returncode == 0 and "cancelled 4 job(s) of bulk" in cancelled.stdout, cancelled.stderr

    refused = pgq(db_url, "purge", "bulk")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert scalar(db_url, "select count(*) from q_data.job") == 3
    purged = pgq(db_url, "purge", "bulk", "--yes")
    assert purged.returncode == 0 and "purged 3 job(s)" in purged.stdout

    assert pgq(db_url, "delete-queue", "bulk").returncode == 2
    deleted = pgq(db_url, "delete-queue", "bulk", "--yes")
    assert deleted.returncode == 0 and "queue bulk deleted (4 history row(s)" in deleted.stdout, deleted.stderr
    assert scalar(db_url, "select count(*) from q_data.queue where name = 'bulk'") == 0


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("retry-dead", "nosuchqueue"), 1, "queue 'nosuchqueue' does not exist"),
        (("purge", "bad name!", "--yes"), 1, "invalid queue name"),
        (("cancel-jobs", "q1", "--state", "dead"), 2, "'dead' is not one of"),
        (("cancel-jobs", "q1", "--payload", "{nope"), 2, "not valid JSON"),
        (("retry-dead", "q1", "--max-rows", "0"), 2, "--max-rows"),
        (("explain", "abc"), 2, "integer"),
    ],
)
def test_bulk_commands_refuse_bad_input_cleanly(db_url: str, args: tuple[str, ...], code: int, message: str) -> None:
    done = pgq(db_url, *args)
    assert done.returncode == code and message in done.stdout + done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_delete_queue_refuses_a_queue_with_jobs(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.enqueue('busy', '{}')")
    done = pgq(db_url, "delete-queue", "busy", "--yes")
    assert done.returncode == 1 and "still has waiting" in done.stderr and "q.purge" in done.stderr, done.stderr
    assert scalar(db_url, "select count(*) from q_data.job") == 1




def test_pgq_jobs_lists_and_shows_a_job_whose_payload_python_cannot_decode(db_url: str) -> None:
    # A 4,301-digit integer in the payload (design.md#one-job-hurts-only-itself).
    with psycopg.connect(db_url, autocommit=True) as conn:
        poison = conn.execute("""select q.enqueue('w', '{"n": 1e4300}'::jsonb)""").fetchone()[0]
        conn.execute("""select q.enqueue('w', '{"n": 1}'::jsonb)""")
    listed = pgq(db_url, "jobs", "--queue", "w")
    assert listed.returncode == 0 and str(poison) in listed.stdout, listed.stderr
    shown = pgq(db_url, "jobs", str(poison))
    assert shown.returncode == 0 and "cannot be decoded" in shown.stdout and "4300 digits" in shown.stdout, shown.stderr
