"""The soak suites' own PostgreSQL cluster (.pg-soak, port 54361, or
PGQ_SOAK_PG_PORT): they crash, restart and load it, so never the shared one
in .pg. Fresh databases on it are installed with `alembic upgrade head`, as
users install pgq (PGQ_SOAK_REVISION: another revision, to measure old SQL).
Tests that restart a server of their own make a Cluster with another name
and port."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
from psycopg.conninfo import make_conninfo

ROOT = Path(__file__).resolve().parents[3]
PORT = int(os.environ.get("PGQ_SOAK_PG_PORT", "54361"))
ALEMBIC = str(Path(sys.executable).with_name("alembic"))


def _as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _root(name: str = "soak") -> Path:
    path = ROOT / f".pg-{name}"
    if os.geteuid() == 0 and subprocess.run([*_as_postgres(), "test", "-x", str(ROOT)]).returncode != 0:
        path = Path("/var/tmp") / f"pgq-{name}-{hashlib.md5(str(ROOT).encode()).hexdigest()[:12]}"
    return path


class Cluster:
    def __init__(self, name: str = "soak", port: int = PORT) -> None:
        self.root = _root(name)
        self.port = port
        self.env = {**os.environ, "PGQ_PG_ROOT": str(self.root), "PGQ_PG_PORT": str(port)}
        self.env.pop("DATABASE_URL", None)
        self.databases: list[str] = []

    def _script(self, action: str) -> str:
        done = subprocess.run([str(ROOT / "scripts" / "embedded-pg"), action], env=self.env, check=True,
                              capture_output=True, text=True)
        return done.stdout.strip()

    def start(self) -> None:
        self._script("start")

    def stop(self) -> None:
        self._script("stop")

    @property
    def server_url(self) -> str:
        return make_conninfo(self._script("url"), dbname="postgres")

    def url(self, dbname: str) -> str:
        return make_conninfo(self.server_url, dbname=dbname)

    def restart(self, mode: str) -> float:
        """pg_ctl restart -m immediate|fast; returns the seconds until the server accepts connections again."""
        bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))[-1]
        started = time.monotonic()
        subprocess.run([*_as_postgres(), str(bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m", mode,
                        "-l", str(self.root / "server.log"), "-w", "-t", "60", "restart"],
                       check=True, capture_output=True)
        while True:
            try:
                with psycopg.connect(self.server_url, connect_timeout=2) as conn:
                    conn.execute("select 1")
                return time.monotonic() - started
            except psycopg.OperationalError:
                time.sleep(0.05)

    def new_database(self, prefix: str) -> str:
        """A fresh database with pgq installed by `alembic upgrade head`; returns its URL."""
        name = f"{prefix}_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(self.server_url, autocommit=True) as conn:
            conn.execute(f'create database "{name}"')
        self.databases.append(name)
        url = self.url(name)
        revision = os.environ.get("PGQ_SOAK_REVISION", "head")
        subprocess.run([ALEMBIC, "upgrade", revision], cwd=ROOT, env={**os.environ, "DATABASE_URL": url}, check=True,
                       capture_output=True)
        return url

    def drop_databases(self) -> None:
        with psycopg.connect(self.server_url, autocommit=True) as conn:
            for name in self.databases:
                conn.execute(f'drop database if exists "{name}" with (force)')
        self.databases.clear()
