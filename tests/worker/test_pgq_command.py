"""The `pgq` command, run as a subprocess the way users run it."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from worker_support import PGQ, prepare, ready, scalar, wait_for


def pgq(url: str | None, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    env["COLUMNS"] = "200"
    if url is not None:
        env["DATABASE_URL"] = url
    return subprocess.run([PGQ, *args], env=env, capture_output=True, text=True, timeout=timeout)


def no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr


def test_migrate_installs_pgq_into_an_empty_database(new_database: Callable[[], str]) -> None:
    url = new_database()
    done = pgq(url, "migrate")
    assert done.returncode == 0, done.stderr
    assert scalar(url, "select count(*) from pg_proc where pronamespace = 'q'::regnamespace and proname = 'claim'") == 1
    assert pgq(url, "migrate").returncode == 0, "a second run finds it at head"


def test_enqueue_stats_jobs_cancel_retry_and_reap(db_url: str) -> None:
    done = pgq(db_url, "enqueue", "mail", '{"to": "ada@example.com"}', "--priority", "3", "--dedup-key", "ada")
    assert done.returncode == 0, done.stderr
    job = int(done.stdout.strip())
    later = int(pgq(db_url, "enqueue", "mail", "[1, 2]", "--run-at", "+1h").stdout.strip())
    assert scalar(db_url, "select (priority, dedup_key, state) = (3::smallint, 'ada', 'w') from q_data.job where "
                          "id = %s",
                  (job,))
    assert scalar(db_url, "select state = 's' and run_at > now() + interval '50 minutes' from q_data.job where id = %s",
                  (later,))

    stats = pgq(db_url, "stats", "--once")
    assert stats.returncode == 0 and "mail" in stats.stdout, stats.stderr
    listing = pgq(db_url, "jobs", "--queue", "mail")
    assert listing.returncode == 0 and str(job) in listing.stdout and "scheduled" in listing.stdout

    assert pgq(db_url, "cancel", str(job)).returncode == 0
    assert scalar(db_url, "select state from q_data.job_history where id = %s", (job,)) == "cancelled"
    detail = pgq(db_url, "jobs", str(job))
    assert detail.returncode == 0 and "cancelled" in detail.stdout and "ada@example.com" in detail.stdout

    assert pgq(db_url, "retry", str(job)).returncode == 0
    assert scalar(db_url, "select state from q_data.job where id = %s", (job,)) == "w"
    reaped = pgq(db_url, "reap")
    assert reaped.returncode == 0 and "recovered 0" in reaped.stdout


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("enqueue", "mail", "{not json"), 2, "not valid JSON"),
        (("enqueue", "bad queue name!", "{}"), 1, "queue"),
        (("enqueue", "mail", "{}", "--run-at", "next tuesday"), 2, "ISO 8601"),
        (("retry", "987654321"), 1, "does not exist"),
        (("cancel", "987654321"), 1, "does not exist"),
        (("jobs", "987654321"), 1, "does not exist"),
        (("retry", "abc"), 2, "integer"),
        (("jobs", "--state", "sleeping"), 2, "sleeping"),
        (("worker", "no_such_module:handler", "-q", "w"), 2, "cannot import"),
        (("worker", "worker_test_handlers", "-q", "w"), 2, "module:function"),
        # From the wrong directory: the import error first (no --queue can fix it), then the missing option.
        (("worker", "worker_test_handlers:run"), 2, "error: cannot import module 'worker_test_handlers'"),
        (("worker", "json:dumps"), 2, "Missing option '--queue'"),
        (("nonsense",), 2, "No such command"),
    ],
)
def test_bad_arguments_get_a_clear_message_and_a_nonzero_exit(
    db_url: str, args: tuple[str, ...], code: int, message: str
) -> None:
    done = pgq(db_url, *args)
    assert done.returncode == code, done.stdout + done.stderr
    assert message in done.stdout + done.stderr
    no_traceback(done)


def test_commands_without_a_database_say_so(tmp_path: Any) -> None:
    done = pgq(None, "stats", "--once")
    assert done.returncode == 2 and "DATABASE_URL" in done.stderr
    unreachable = pgq(f"postgresql://nobody@/nowhere?host={tmp_path}&port=1", "reap")
    assert unreachable.returncode == 1 and "database error" in unreachable.stderr
    no_traceback(unreachable)


def test_retrying_a_job_that_is_not_dead_is_refused_cleanly(db_url: str) -> None:
    job = int(pgq(db_url, "enqueue", "mail", "{}").stdout.strip())
    done = pgq(db_url, "retry", str(job))
    assert done.returncode == 1 and "not dead or cancelled" in done.stderr
    no_traceback(done)


def test_worker_command_runs_jobs_and_stops_on_sigint(db_url: str, spawn: Callable[..., Any]) -> None:
    prepare(db_url)
    worker = spawn(db_url, "-q", "w", "--concurrency", "3", "--log-json")
    ready(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.enqueue_many('w', '[{\"n\": 1}, {\"n\": 2}, {\"fail\": \"nope\"}]')")
    wait_for(lambda: scalar(db_url, "select count(*) from q_data.job_history where state = 'completed'") == 2, 10,
             "two jobs to complete")
    worker.signal(signal.SIGINT)
    assert worker.wait(15) == 0
    log = worker.output()
    assert '"event": "worker_started"' in log and '"event": "job_failed"' in log and "RuntimeError: nope" in log


def test_pgq_configure_takes_every_argument_of_q_configure(db_url: str) -> None:
    """Parity: a flag per q.configure argument (read from the database), and the new ones take effect."""
    import inspect

    from pgq_client.cli._commands import configure as command

    with psycopg.connect(db_url, autocommit=True) as conn:
        names = {r[0] for r in conn.execute(
            "select unnest(p.proargnames) from pg_proc p join pg_namespace n on n.oid = p.pronamespace"
            " where n.nspname = 'q' and p.proname = 'configure'")}
    assert names == set(inspect.signature(command).parameters), "pgq configure and q.configure differ"

    done = pgq(db_url, "configure", "mail", "--backoff-base", "2s", "--backoff-max", "10m", "--keep-completed",
               "--retention", "3d", "--max-crashes", "4", "--max-lease", "2h", "--lease", "90m",
               "--keep-results", "2d", "--max-result-size", "4096")
    assert done.returncode == 0, done.stderr
    with psycopg.connect(db_url, autocommit=True) as conn:
        row = conn.execute("select backoff_base, backoff_max, keep_completed, retention, max_crashes, max_lease,"
                           " keep_results, max_result_size from q.configure('mail')").fetchone()
        assert conn.execute("select count(*) from q.claim('mail', 1, lease => '90 minutes')").fetchone() == (0,)
    assert row == (timedelta(seconds=2), timedelta(minutes=10), True, timedelta(days=3), 4, timedelta(hours=2),
                   timedelta(days=2), 4096)
    assert pgq(db_url, "configure", "mail", "--drop-completed").returncode == 0
    bad = pgq(db_url, "configure", "mail", "--backoff-base", "1h", "--backoff-max", "1m")
    assert bad.returncode == 1 and "backoff_max" in bad.stderr, bad.stderr
    no_traceback(bad)


def test_tables_keep_timestamps_whole_in_an_80_column_terminal(db_url: str) -> None:
    """At 80 columns (or in a pipe) a table too wide is printed wider, never as "2026-12…"."""
    from datetime import datetime, timezone

    when = datetime(2031, 5, 17, 4, 5, 6, tzinfo=timezone.utc)
    with psycopg.connect(db_url, autocommit=True) as conn:
        job = conn.execute("select q.enqueue('a_rather_long_queue_name', '{}', run_at => %s)", (when,)).fetchone()[0]
        conn.execute("select q.schedule('nightly', queue => 'maintenance', cron => '0 3 * * *',"
                     " timezone => 'Europe/Berlin')")
    env = {**os.environ, "DATABASE_URL": db_url, "COLUMNS": "80"}
    for args, whole in ((("jobs",), ["2031-05-17 04:05:06+00:00", "a_rather_long_queue_name", "scheduled", str(job)]),
                        (("schedule", "list"), ["0 3 * * *", "Europe/Berlin", " 03:00:00+0"])):
        done = subprocess.run([PGQ, *args], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        for text in whole:
            assert text in done.stdout, (args, text, done.stdout)
        assert "…" not in done.stdout, done.stdout
