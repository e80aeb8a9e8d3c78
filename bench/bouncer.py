"""A PgBouncer of the harness's own, in transaction mode, in front of the bench server."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from .cluster import Server

PORT = 54352
POOL_SIZE = 20


def binary() -> str | None:
    return shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None)


@contextmanager
def pgbouncer(server: Server, pool_size: int = POOL_SIZE) -> Iterator[Server]:
    """Start PgBouncer (pool_mode=transaction) on a Unix socket; yields a Server that goes through it."""
    exe = binary()
    if exe is None:
        raise RuntimeError("pgbouncer is not installed (make deps installs it)")
    params = conninfo_to_dict(server.url)
    # Under /var/tmp, not the checkout: PgBouncer runs as postgres, which may
    # not be able to enter the checkout (a clone under /root).
    home = Path(tempfile.mkdtemp(prefix="pgq-bench-bouncer-", dir="/var/tmp"))
    os.chmod(home, 0o755)
    (home / "users.txt").write_text(f'"{params.get("user", "postgres")}" ""\n')
    target = " ".join(f"{k}={params[k]}" for k in ("host", "port", "user", "password") if params.get(k))
    (home / "pgbouncer.ini").write_text(
        f"""[databases]
* = {target}

[pgbouncer]
listen_addr =
listen_port = {PORT}
unix_socket_dir = {home}
auth_type = trust
auth_file = {home}/users.txt
pool_mode = transaction
default_pool_size = {pool_size}
max_client_conn = 1000
ignore_startup_parameters = extra_float_digits,options
logfile = {home}/pgbouncer.log
pidfile = {home}/pgbouncer.pid
"""
    )
    as_postgres = os.geteuid() == 0
    if as_postgres:
        shutil.chown(home, "postgres")
        for f in home.iterdir():
            shutil.chown(f, "postgres")
    cmd = [exe, "-d", str(home / "pgbouncer.ini")]
    subprocess.run((["runuser", "-u", "postgres", "--"] if as_postgres else []) + cmd, check=True)
    pidfile = home / "pgbouncer.pid"
    for _ in range(100):
        if pidfile.exists() and (home / f".s.PGSQL.{PORT}").exists():
            break
        time.sleep(0.05)
    pid = int(pidfile.read_text().strip())
    try:
        url = make_conninfo(host=str(home), port=str(PORT), user=params.get("user", "postgres"), dbname="postgres")
        yield Server(url=url, own=False)
    finally:
        os.kill(pid, signal.SIGTERM)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        shutil.rmtree(home, ignore_errors=True)
