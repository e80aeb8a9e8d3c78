"""A new user's machine: pip install the wheel in a fresh virtualenv outside the checkout, then
`pgq --version`, `pgq migrate` on an empty database, enqueue, drain with `pgq worker`; and a host
application whose own Alembic runs pgq's revisions beside its own branch, up and down.

Runs on CPython 3.10 and 3.13 (pyenv's, or python3.X on PATH); a missing one is skipped with a
message naming the versions that ran.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from packaging_support import ROOT, WANTED, Dist, Venv, clean_env, python_or_skip, with_extras
from pgq_client._version import __version__
from psycopg.conninfo import conninfo_to_dict

REPO_HEAD = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_current_head()

TASKS = '''\
import os


def handle(payload: dict, job) -> None:
    with open(os.environ["LEDGER"], "a") as ledger:
        ledger.write(f"{payload['n']} {job.attempt}\\n")
'''


def scalar(url: str, query: str) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(query).fetchone()
        return row[0] if row else None


def site_packages(venv: Venv) -> Path:
    return Path(venv.ok("python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())


@pytest.mark.slow
@pytest.mark.parametrize("version", WANTED)
def test_pip_install_then_migrate_enqueue_and_drain_with_pgq_worker_on_a_clean_machine(
    version: str, dist: Dist, clean_venv: Callable[..., Venv], empty_database: str
) -> None:
    venv = clean_venv(python_or_skip(version), with_extras(dist.wheel, "cli", "binary"))
    assert venv.ok("python", "-c", "import sys; print(sys.version[:4])").strip() == version

    line = venv.ok("pgq", "--version").strip()
    assert line == f"pgq {__version__} (pgq-client {__version__}, schema revision {REPO_HEAD})"

    env = {"DATABASE_URL": empty_database}
    done = venv.ok("pgq", "migrate", env=env)
    assert str(site_packages(venv) / "pgq_client" / "alembic") in done, done  # the wheel's copy, not the checkout
    assert scalar(empty_database, "select version_num from q.alembic_version") == REPO_HEAD
    assert "is at revision" in venv.ok("pgq", "migrate", env=env), "a second run finds it at head"

    ids = [int(venv.ok("pgq", "enqueue", "clean", f'{{"n": {n}}}', env=env)) for n in range(5)]
    assert len(set(ids)) == 5
    (venv.home / "tasks.py").write_text(TASKS)
    ledger = venv.home / "ledger.txt"
    worker = subprocess.Popen(
        [str(venv.path / "bin" / "pgq"), "worker", "tasks:handle", "-q", "clean", "--concurrency", "2"],
        cwd=venv.home, env=clean_env(venv.path, DATABASE_URL=empty_database, LEDGER=str(ledger)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and worker.poll() is None:
            left = scalar(empty_database, "select count(*) from q_data.job")
            if left == 0 and ledger.exists() and len(ledger.read_text().splitlines()) == 5:
                break
            time.sleep(0.2)
    finally:
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err[-3000:]
    assert sorted(ledger.read_text().splitlines()) == [f"{n} 1" for n in range(5)], err[-3000:]
    assert scalar(empty_database, "select count(*) from q_data.job") == 0
    assert "worker_started" in err and "Traceback" not in err


HOST_INI = """\
[alembic]
script_location = %(here)s/migrations
# The host's own revisions, and pgq's from the installed package (a package resource).
path_separator = newline
version_locations =
    %(here)s/migrations/versions
    pgq_client:alembic/versions
"""

HOST_ENV = '''\
import os

from sqlalchemy import create_engine, pool

from alembic import context

engine = create_engine(os.environ["APP_DATABASE_URL"], poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
'''

HOST_REVISION = '''\
"""orders: the host application's own table."""

from alembic import op
import sqlalchemy as sa

revision = "a1b2c3d4e5f6"
down_revision = None
branch_labels = ("app",)
depends_on = None


def upgrade() -> None:
    op.create_table("orders", sa.Column("id", sa.Integer, primary_key=True), sa.Column("total", sa.Integer))


def downgrade() -> None:
    op.drop_table("orders")
'''

HOST_CODE = '''\
import os

import psycopg

from pgq_client import claim, complete, enqueue
from pgq_client.migrations import version_location

url = os.environ["DATABASE_URL"]
with psycopg.connect(url) as conn:  # one transaction: the order and its job
    conn.execute("insert into orders (id, total) values (1, 99)")
    enqueue(conn, "emails", {"order": 1})
with psycopg.connect(url, autocommit=True) as conn:
    (job,) = claim(conn, "emails", 10)
    assert complete(conn, job.id, job.token)
print(version_location())
'''


def sqlalchemy_url(conninfo: str) -> str:
    """postgresql+psycopg:// URL of a libpq key=value string on a Unix socket."""
    d = conninfo_to_dict(conninfo)
    return f"postgresql+psycopg://{d['user']}@/{d['dbname']}?host={d['host']}&port={d['port']}"


@pytest.mark.slow
@pytest.mark.parametrize("version", WANTED)
def test_a_host_applications_alembic_runs_pgq_beside_its_own_branch_up_and_down(
    version: str, dist: Dist, clean_venv: Callable[..., Venv], empty_database: str
) -> None:
    venv = clean_venv(python_or_skip(version), with_extras(dist.wheel, "migrations", "binary"))
    app = venv.home / "app"
    (app / "migrations" / "versions").mkdir(parents=True)
    (app / "alembic.ini").write_text(HOST_INI)
    (app / "migrations" / "env.py").write_text(HOST_ENV)
    (app / "migrations" / "versions" / "a1b2c3d4e5f6_orders.py").write_text(HOST_REVISION)
    env = {"APP_DATABASE_URL": sqlalchemy_url(empty_database), "DATABASE_URL": empty_database}

    def alembic(*args: str) -> str:
        return venv.ok("alembic", *args, env=env, cwd=app)

    heads = alembic("heads")
    assert f"{REPO_HEAD} (pgq) (head)" in heads and "a1b2c3d4e5f6 (app) (head)" in heads
    alembic("upgrade", "app@head")
    alembic("upgrade", "pgq@head")
    versions = "select array_agg(version_num order by version_num) from alembic_version"
    assert scalar(empty_database, versions) == [REPO_HEAD, "a1b2c3d4e5f6"]  # the host's own version table
    out = venv.ok("python", "-c", HOST_CODE, env=env, cwd=app)
    assert out.strip() == str(site_packages(venv) / "pgq_client" / "alembic" / "versions")

    alembic("downgrade", "pgq@base")
    gone = "select count(*) from pg_proc where pronamespace = 'q'::regnamespace"
    assert scalar(empty_database, gone) == 0, "pgq's functions are gone (0001's uninstall keeps schema q itself)"
    assert scalar(empty_database, "select to_regclass('q_data.job')") is None
    assert scalar(empty_database, "select count(*) from orders") == 1, "the host's table and rows stay"
    assert scalar(empty_database, versions) == ["a1b2c3d4e5f6"]
    alembic("upgrade", "heads")
    assert scalar(empty_database, versions) == [REPO_HEAD, "a1b2c3d4e5f6"]
    assert scalar(empty_database, "select count(*) from pg_proc where pronamespace = 'q'::regnamespace") > 10
