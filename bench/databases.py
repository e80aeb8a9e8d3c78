"""Fresh databases for each contender, and backlogs to claim from.

pgq goes in with ``alembic upgrade head`` once, into a template database;
every pgq database of the run is a copy of it. The seeds' hand-written
queues get their own SQL files from bench/sql/.

Where pgq's tables are: revision 0008 moved its tables, sequences and indexes
from schema q into q_data (functions and types stay in q). The bench's SQL
names them as head does (``q_data.job``); a database the bench migrated to an
older revision (``--pgq-revision``) keeps them in q. Every text that names
one goes through ``adapt`` (or ``execute``) with a connection to the database
it is for; pgbench scripts too (bench/pgbench.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

import psycopg

from .cluster import ROOT, Server

SQL = Path(__file__).resolve().parent / "sql"
TEMPLATE = "bench_pgq_template"
QUEUE = "bench"
# The Node benchmark's payload (design.md#the-node-benchmark): { userId, email, template }, about 70 bytes of JSON.
PAYLOAD_SQL = (
    "jsonb_build_object('userId', g, 'email', 'user' || g || '@example.com', 'template', 'welcome-email')"
)
HEAD_TABLES = "q_data"  # the schema of pgq's tables at head (revision 0008 on); q before it
_schemas: weakref.WeakKeyDictionary[psycopg.Connection[Any], str] = weakref.WeakKeyDictionary()


def table_schema(conn: psycopg.Connection[Any]) -> str:
    """Which schema holds pgq's tables in conn's database: q_data at head, q at a revision before 0008.

    Asked once per connection (a connection stays in one database).
    """
    schema = _schemas.get(conn)
    if schema is None:
        moved = conn.execute(f"select to_regclass('{HEAD_TABLES}.job') is not null").fetchone()[0]
        schema = _schemas[conn] = HEAD_TABLES if moved else "q"
    return schema


def for_schema(sql: str, schema: str) -> str:
    """sql, which names pgq's tables and indexes as head does (q_data.job), with them in schema instead."""
    return sql if schema == HEAD_TABLES else re.sub(rf"\b{HEAD_TABLES}\.", f"{schema}.", sql)


def adapt(conn: psycopg.Connection[Any], sql: str) -> str:
    """sql (or a table's name), written as head names pgq's tables, as conn's database names them."""
    return for_schema(sql, table_schema(conn))


def execute(conn: psycopg.Connection[Any], sql: str, params: Any = None) -> psycopg.Cursor[Any]:
    """conn.execute of sql, written as head names pgq's tables, adapted to conn's database."""
    return conn.execute(adapt(conn, sql), params)


def frozen_before_0008(sql: str, *relations: str) -> str:
    """SQL frozen at a revision before 0008, which names the given relations in q (q.job), as the
    bench writes SQL (q_data.job), so that `adapt` fits it to any database.

    The relations are named, not guessed: q.tally, q.schedule and q.throughput are functions at
    head as well as tables in q_data.
    """
    names = "|".join(sorted(map(re.escape, relations), key=len, reverse=True))
    return re.sub(rf"\bq\.({names})\b", rf"{HEAD_TABLES}.\1", sql)


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
    return int(execute(conn, "select id from q_data.queue where name = %s", (QUEUE,)).fetchone()[0])


def fill_pgq(conn: psycopg.Connection, n: int, payload: str = "jsonb_build_object('n', g)") -> None:
    """n waiting jobs in queue 'bench', straight into q_data.job (set-up only, never measured)."""
    if n <= 0:
        return
    qid = queue_id(conn)
    with conn.transaction():
        conn.execute("set local pgq.notify = off")
        execute(
            conn,
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
    """Back to `backlog` waiting jobs and nothing else, vacuumed (the claim-rate article: "freshly vacuumed")."""
    execute(conn, "delete from q_data.job where state <> 'w'")
    waiting = execute(conn, "select count(*) from q_data.job where state = 'w'").fetchone()[0]
    fill_pgq(conn, backlog - waiting)
    execute(conn, "vacuum (analyze) q_data.job")


def reset_seed001(conn: psycopg.Connection, backlog: int) -> None:
    conn.execute("delete from jobs where status <> 'queued'")
    waiting = conn.execute("select count(*) from jobs where status = 'queued'").fetchone()[0]
    fill_seed001(conn, backlog - waiting)
    conn.execute("vacuum (analyze) jobs")
