"""Fresh databases for each contender, and backlogs to claim from.

pgq goes in with ``alembic upgrade head`` once, into a template database;
every pgq database of the run is a copy of it. The seeds' hand-written
queues get their own SQL files from bench/sql/.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg

from .cluster import ROOT, Server

SQL = Path(__file__).resolve().parent / "sql"
TEMPLATE = "bench_pgq_template"
QUEUE = "bench"
# Seed 004's payload: { userId, email, template }, about 70 bytes of JSON.
PAYLOAD_SQL = (
    "jsonb_build_object('userId', g, 'email', 'user' || g || '@example.com', 'template', 'welcome-email')"
)


def template(revision: str | None = None) -> str:
    """The template database of pgq at head, or at an older Alembic revision (pgq@<rev>)."""
    return TEMPLATE if not revision else f"{TEMPLATE}_{revision}"


def install_pgq_template(server: Server, revision: str | None = None) -> None:
    """Create the template database and run `alembic upgrade head` (or `upgrade <revision>`) in it.

    Revisions are append-only, so `alembic upgrade 0002` installs exactly
    0002's frozen SQL: a database to measure today's code against.
    """
    name = template(revision)
    dsn = server.recreate(name)
    env = {**os.environ, "DATABASE_URL": dsn}
    out = subprocess.run(
        [str(Path(sys.executable).parent / "alembic"), "upgrade", revision or "head"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"alembic upgrade {revision or 'head'} failed: {out.stderr[-2000:]}")
    with server.connect(name) as conn:
        conn.execute("select q.configure(%s)", (QUEUE,))


def drop_templates(server: Server, revisions: tuple[str, ...] = ()) -> None:
    for rev in (None, *revisions):
        server.drop(template(rev))


def new_pgq(server: Server, name: str, revision: str | None = None) -> str:
    return server.recreate(name, template=template(revision))


def new_raw(server: Server, name: str, schema: str) -> str:
    dsn = server.recreate(name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute((SQL / schema).read_text())
    return dsn


def queue_id(conn: psycopg.Connection) -> int:
    return int(conn.execute("select id from q_data.queue where name = %s", (QUEUE,)).fetchone()[0])


def fill_pgq(conn: psycopg.Connection, n: int, payload: str = "jsonb_build_object('n', g)") -> None:
    """n waiting jobs in queue 'bench', straight into q_data.job (set-up only, never measured)."""
    if n <= 0:
        return
    qid = queue_id(conn)
    with conn.transaction():
        conn.execute("set local pgq.notify = off")
        conn.execute(
            f"insert into q_data.job (queue_id, payload, run_at, state)"
            f" select %s, {payload}, clock_timestamp(), 'w' from generate_series(1, %s) g",
            (qid, n),
        )


def fill_seed001(conn: psycopg.Connection, n: int) -> None:
    if n > 0:
        conn.execute(
            "insert into jobs (payload, created_at)"
            " select jsonb_build_object('n', g), clock_timestamp() from generate_series(1, %s) g",
            (n,),
        )


def reset_pgq(conn: psycopg.Connection, backlog: int) -> None:
    """Back to `backlog` waiting jobs and nothing else, vacuumed (seed 001: "freshly vacuumed")."""
    conn.execute("delete from q_data.job where state <> 'w'")
    waiting = conn.execute("select count(*) from q_data.job where state = 'w'").fetchone()[0]
    fill_pgq(conn, backlog - waiting)
    conn.execute("vacuum (analyze) q_data.job")


def reset_seed001(conn: psycopg.Connection, backlog: int) -> None:
    conn.execute("delete from jobs where status <> 'queued'")
    waiting = conn.execute("select count(*) from jobs where status = 'queued'").fetchone()[0]
    fill_seed001(conn, backlog - waiting)
    conn.execute("vacuum (analyze) jobs")
