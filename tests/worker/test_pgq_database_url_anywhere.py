"""`--database-url` works before or after the command's name (the README's PgBouncer command once
put it after, where typer refused it)."""

from __future__ import annotations

import os
import subprocess

import psycopg
from pgq_client.cli._commands import hoist_database_url
from worker_support import PGQ


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith("PG")}
    return subprocess.run([PGQ, *args], env=env, capture_output=True, text=True, timeout=60)


def test_database_url_after_the_command_name_is_the_same_as_before_it(db_url: str) -> None:
    after = run("enqueue", "mail", '{"n": 1}', "--database-url", db_url)
    assert after.returncode == 0, after.stderr
    equals = run("enqueue", "mail", '{"n": 2}', f"--database-url={db_url}")
    assert equals.returncode == 0, equals.stderr
    before = run("--database-url", db_url, "stats", "--once")
    assert before.returncode == 0 and "mail" in before.stdout, before.stderr
    with psycopg.connect(db_url) as conn:
        assert conn.execute("select count(*) from q_data.job").fetchone() == (2,)


def test_only_the_options_own_spellings_move() -> None:
    argv = ["worker", "t:f", "-q", "a", "--database-url", "dbname=x", "--concurrency", "2"]
    assert hoist_database_url(argv) == ["--database-url", "dbname=x", "worker", "t:f", "-q", "a", "--concurrency", "2"]
    payload = ["enqueue", "q", '{"x": "--database-url"}']
    assert hoist_database_url(payload) == payload
    assert hoist_database_url(["stats", "--database-url=dbname=y"]) == ["--database-url=dbname=y", "stats"]
