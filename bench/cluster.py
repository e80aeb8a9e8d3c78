"""The PostgreSQL server the benchmarks run on.

By default the harness starts a cluster of its own (``.pg-bench``, Unix socket
only) through ``scripts/embedded-pg``, gives it the articles' settings
(shared_buffers 512MB and max_connections 200, like the claim-rate article:
design.md#the-claim-rate-article) and stops it at the end, so it can restart it
and tune it without disturbing anyone. With ``--database-url`` (``make bench``
passes the user's ``DATABASE_URL``) it uses that server instead: settings that
need a superuser or a restart are then left as they are and the report says
which ones were in force.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED = ROOT / "scripts" / "embedded-pg"
# The test of `make bench-quick` points these elsewhere so it never meets a running `make bench`.
BENCH_ROOT = Path(os.environ.get("PGQ_BENCH_PG_ROOT", str(ROOT / ".pg-bench")))
BENCH_PORT = os.environ.get("PGQ_BENCH_PG_PORT", "54351")

# Applied with ALTER SYSTEM on the harness's own cluster (then a restart).
OWN_SETTINGS = {
    "shared_buffers": "512MB",
    "max_connections": "200",
    # Stock autovacuum launcher: the claim-rate article's "stock configuration". Measurements
    # that want pgq's recommended server setting (sql/server_settings.sql)
    # switch it to 5s themselves and back.
    "autovacuum_naptime": "1min",
}


@dataclass
class Server:
    """A server and how to reach its databases."""

    url: str
    own: bool
    env: dict[str, str] = field(default_factory=dict)

    def dsn(self, dbname: str) -> str:
        return make_conninfo(**{**conninfo_to_dict(self.url), "dbname": dbname})

    def libpq_env(self, dbname: str) -> dict[str, str]:
        """PG* variables for pgbench/psql/pg_test_fsync children."""
        params = conninfo_to_dict(self.dsn(dbname))
        names = {"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD", "dbname": "PGDATABASE"}
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update({names[k]: str(v) for k, v in params.items() if k in names})
        return env

    def connect(self, dbname: str = "postgres", **kwargs: Any) -> psycopg.Connection[Any]:
        return psycopg.connect(self.dsn(dbname), autocommit=True, **kwargs)

    def setting(self, name: str) -> str:
        with self.connect() as conn:
            return str(conn.execute("select current_setting(%s)", (name,)).fetchone()[0])

    def set_naptime(self, value: str) -> bool:
        """Switch autovacuum_naptime on the harness's own cluster; never touches a user's server."""
        if not self.own:
            return False
        try:
            with self.connect() as conn:
                conn.execute(f"alter system set autovacuum_naptime = '{value}'")
                conn.execute("select pg_reload_conf()")
            return True
        except psycopg.Error:
            return False

    def restart_with(self, settings: dict[str, str | None]) -> None:
        """ALTER SYSTEM these settings (None: RESET) on the harness's own cluster and restart it."""
        if not self.own:
            raise RuntimeError("the harness restarts only its own cluster, never a user's server")
        with self.connect() as conn:
            for name, value in settings.items():
                if value is None:
                    conn.execute(f"alter system reset {name}")
                else:
                    # A list setting takes one quoted element per item: 'a', 'b' (not 'a,b').
                    items = ", ".join(f"'{v.strip()}'" for v in value.split(",") if v.strip()) or "''"
                    conn.execute(f"alter system set {name} = {items}")
        _embedded("stop", self.env)
        _embedded("start", self.env)

    def recreate(self, dbname: str, template: str | None = None) -> str:
        """Drop and create a database; returns its DSN."""
        with self.connect() as conn:
            conn.execute(f'drop database if exists "{dbname}" with (force)')
            conn.execute(f'create database "{dbname}"' + (f' template "{template}"' if template else ""))
        return self.dsn(dbname)

    def drop(self, dbname: str) -> None:
        with self.connect() as conn:
            conn.execute(f'drop database if exists "{dbname}" with (force)')


def _embedded(cmd: str, env: dict[str, str]) -> str:
    out = subprocess.run([str(EMBEDDED), cmd], env=env, check=True, capture_output=True, text=True)
    return out.stdout.strip()


@contextmanager
def server(database_url: str | None) -> Iterator[Server]:
    """The user's server when a URL is given, else the harness's own cluster (stopped on exit)."""
    if database_url:
        yield Server(url=database_url, own=False)
        return
    env = {**os.environ, "PGQ_PG_ROOT": str(BENCH_ROOT), "PGQ_PG_PORT": BENCH_PORT, "PGQ_DB": "postgres"}
    _embedded("start", env)
    srv = Server(url=_embedded("url", env), own=True, env=env)
    try:
        with srv.connect() as conn:
            for name, value in OWN_SETTINGS.items():
                conn.execute(f"alter system set {name} = '{value}'")
            conn.execute("select pg_reload_conf()")
            conn.execute("select pg_sleep(0.2)")
            restart = conn.execute("select count(*) from pg_settings where pending_restart").fetchone()[0]
        if restart:
            _embedded("stop", env)
            _embedded("start", env)
        yield srv
    finally:
        _embedded("stop", env)
