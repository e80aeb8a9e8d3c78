"""Fixtures for the worker runtime tests: worker processes, a private cluster, a real PgBouncer.

* ``spawn`` starts ``pgq worker`` processes (handlers from worker_test_handlers.py)
  and kills whatever is left at the end of the test.
* ``private_cluster`` (session): a PostgreSQL cluster of these tests' own
  (``.pg-worker``, port 54341), which the restart test may stop and start;
  stopped at the end of the session. Never the shared one.
* ``pgbouncer`` (session): Debian's pgbouncer, pool_mode=transaction, in front of
  the shared cluster's socket, on a socket of its own.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from worker_support import (
    BOUNCER_PORT,
    HERE,
    PGQ,
    PRIVATE_PORT,
    ROOT,
    as_postgres,
    private_dir,
    wait_for,
    worker_env,
)


class Spawned:
    def __init__(self, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.proc = proc
        self.log = log

    @property
    def pid(self) -> int:
        return self.proc.pid

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Callable[..., Spawned]]:
    started: list[Spawned] = []

    def start(url: str, *args: str, handler: str = "worker_test_handlers:run") -> Spawned:
        log = tmp_path / f"worker-{len(started)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen([PGQ, "worker", handler, *args], env=worker_env(url), stdout=out,
                                    stderr=subprocess.STDOUT, cwd=HERE)
        started.append(Spawned(proc, log))
        return started[-1]

    yield start
    for s in started:
        if s.proc.poll() is None:
            s.proc.send_signal(signal.SIGKILL)
            s.proc.wait(10)


# -- private directories the postgres user can enter ---------------------------------------------


# -- a cluster of our own, for the restart test -------------------------------------------------------


class PrivateCluster:
    def __init__(self, root: Path) -> None:
        self.env = {**os.environ, "PGQ_PG_ROOT": str(root), "PGQ_PG_PORT": str(PRIVATE_PORT)}
        self.env.pop("DATABASE_URL", None)

    def run(self, action: str) -> str:
        done = subprocess.run([str(ROOT / "scripts" / "embedded-pg"), action], env=self.env, check=True,
                              capture_output=True, text=True)
        return done.stdout.strip()

    def restart(self) -> None:
        self.run("stop")
        self.run("start")

    @property
    def url(self) -> str:
        return self.run("url")


@pytest.fixture(scope="session")
def private_cluster() -> Iterator[PrivateCluster]:
    cluster = PrivateCluster(private_dir("worker"))
    cluster.run("start")
    try:
        yield cluster
    finally:
        cluster.run("stop")


@pytest.fixture
def private_db(private_cluster: PrivateCluster) -> Iterator[str]:
    """A fresh database on the private cluster, installed with alembic upgrade head (as users do)."""
    name = f"pgq_w_{os.getpid()}_{int(time.time() * 1000) % 10**8}"
    server = private_cluster.url
    admin = make_conninfo(server, dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'create database "{name}"')
    url = make_conninfo(server, dbname=name)
    subprocess.run([PGQ, "--database-url", url, "migrate"], check=True, capture_output=True)
    yield url
    private_cluster.run("start")  # in case the test left it stopped
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')


# -- PgBouncer in transaction mode ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def pgbouncer() -> Iterator[Callable[[str], str]]:
    """Start PgBouncer in front of the test server; returns a function mapping a direct URL to one through it."""
    binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not Path(binary).exists():
        pytest.fail("pgbouncer is not installed: run scripts/install-deps")
    server = conninfo_to_dict(os.environ["DATABASE_URL"])
    home = private_dir("bouncer-worker")
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    ini = home / "pgbouncer.ini"
    ini.write_text(
        "[databases]\n"
        f"* = host={server.get('host', '/var/run/postgresql')} port={server.get('port', 5432)}\n"
        "[pgbouncer]\n"
        "listen_addr =\n"
        f"listen_port = {BOUNCER_PORT}\n"
        f"unix_socket_dir = {home}\n"
        "auth_type = trust\n"
        f"auth_file = {home}/users.txt\n"
        "pool_mode = transaction\n"
        "max_client_conn = 200\n"
        "default_pool_size = 8\n"
        "ignore_startup_parameters = extra_float_digits\n"
        f"logfile = {home}/pgbouncer.log\n"
        f"pidfile = {home}/pgbouncer.pid\n"
    )
    (home / "users.txt").write_text('"postgres" ""\n')
    if os.geteuid() == 0:
        shutil.chown(home, "postgres")
        for f in home.iterdir():
            shutil.chown(f, "postgres")
    proc = subprocess.Popen([*as_postgres(), binary, str(ini)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def through(url: str) -> str:
        params = conninfo_to_dict(url)
        params.update(host=str(home), port=str(BOUNCER_PORT))
        return make_conninfo(**params)

    probe = through(os.environ["DATABASE_URL"])
    wait_for(lambda: _connects(probe), 10, "pgbouncer to accept connections", step=0.1)
    try:
        yield through
    finally:
        pidfile = home / "pgbouncer.pid"
        bouncer_pid = int(pidfile.read_text()) if pidfile.exists() else None
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        if bouncer_pid is not None:
            try:
                os.kill(bouncer_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def _connects(url: str) -> bool:
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=2, prepare_threshold=None) as conn:
            conn.execute("select 1")
        return True
    except psycopg.OperationalError:
        return False
