"""The extras are true: the bare package works with psycopg alone, and each extra brings what its
part imports (and the part says which extra when it is missing, the `pgq` command included)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from packaging_support import Dist, Venv, with_extras

ENQUEUE = """\
import os, sys
import psycopg
import pgq_client
from pgq_client import App, aio, claim, complete, enqueue
app = App()
@app.task(queue="bare")
def noop(payload): ...
with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
    enqueue(conn, "bare", {"n": 1})
    noop.enqueue(conn, {"n": 2})
    jobs = claim(conn, "bare", 10)
    assert [j.payload["n"] for j in jobs] == [1, 2], jobs
    assert all(complete(conn, j.id, j.token) for j in jobs)
heavy = sorted(m for m in ("psycopg_pool", "typer", "rich", "alembic", "sqlalchemy", "pydantic") if m in sys.modules)
print(pgq_client.__version__, heavy)
"""


def fails_saying(venv: Venv, code: str, needle: str) -> None:
    done = venv.run("python", "-c", code)
    assert done.returncode != 0 and needle in done.stderr, done.stderr[-2000:]


@pytest.mark.slow
def test_the_bare_package_imports_and_enqueues_with_psycopg_alone(
    dist: Dist, clean_venv: Callable[..., Venv], db_url: str
) -> None:
    venv = clean_venv(sys.executable, "psycopg[binary]")
    venv.ok("pip", "install", "--quiet", "--no-deps", dist.wheel)
    assert venv.installed() == {"pgq-client", "psycopg", "psycopg-binary", "typing-extensions"}
    out = venv.ok("python", "-c", ENQUEUE, env={"DATABASE_URL": db_url})
    assert out.split(" ", 1)[1].strip() == "[]", out  # nothing of an extra was imported
    done = venv.run("pgq", "--version")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("pgq: the pgq command needs the 'cli' extra (typer is not installed):"
                                   " pip install 'pgq-client[cli]'")
    fails_saying(venv, "from pgq_client import Worker", "pip install 'pgq-client[worker]'")
    fails_saying(venv, "import pgq_client.sqlalchemy", "pip install 'pgq-client[sqlalchemy]'")
    fails_saying(venv, "from pgq_client import migrations; migrations.head()", "pip install 'pgq-client[migrations]'")


@pytest.mark.slow
def test_each_extra_brings_what_its_part_needs(dist: Dist, clean_venv: Callable[..., Venv], db_url: str) -> None:
    """One virtualenv, one extra at a time: after each, its part works and the next part still says what it needs."""
    venv = clean_venv(sys.executable, with_extras(dist.wheel, "binary"))
    venv.pip_install(with_extras(dist.wheel, "worker"))
    venv.ok("python", "-c", "from pgq_client import Worker, AsyncWorker; Worker(print, 'q')")
    assert venv.run("pgq", "--version").returncode == 1
    fails_saying(venv, "import pgq_client.sqlalchemy", "'sqlalchemy' extra")

    venv.pip_install(with_extras(dist.wheel, "sqlalchemy"))
    venv.ok("python", "-c", "import pgq_client.sqlalchemy, sqlalchemy.ext.asyncio, greenlet")
    fails_saying(venv, "import pgq_client.testing; pgq_client.testing.create_database('dbname=x')", "alembic")

    venv.pip_install(with_extras(dist.wheel, "migrations"))
    out = venv.ok("python", "-c", "from pgq_client import migrations as m; print(m.head(), m.version_location())")
    assert "/site-packages/pgq_client/alembic/versions" in out

    venv.pip_install(with_extras(dist.wheel, "testing"))
    code = ("from pgq_client.testing import migrated_database, run_jobs\n"
            "import psycopg\n"
            "with migrated_database() as url, psycopg.connect(url, autocommit=True) as conn:\n"
            "    from pgq_client import enqueue\n"
            "    enqueue(conn, 't', {})\n"
            "    print([r.outcome.value for r in run_jobs(conn, lambda payload: None, 't')])\n")
    assert venv.ok("python", "-c", code, env={"DATABASE_URL": db_url}).strip() == "['completed']"

    assert venv.run("pgq", "--version").returncode == 1, "the command still needs typer and rich"
    venv.pip_install(with_extras(dist.wheel, "cli"))
    assert venv.ok("pgq", "--version").startswith("pgq ")
