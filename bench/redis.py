"""A redis-server of the harness's own, for BullMQ on Redis: a Unix socket, no TCP port, no persistence.

It never touches a Redis the system may run on 6379: it listens on no TCP
port at all (`--port 0`), only on a socket in a fresh folder under /var/tmp,
and it is stopped (SIGTERM, then SIGKILL) when the block ends.

Persistence: `--save "" --appendonly no`, so Redis never writes to disk while it
is measured. The Node benchmark (design.md#the-node-benchmark) ran Debian's
default config (RDB snapshots, no AOF): at the bench's sizes a snapshot would
fork at most once a minute; either way Redis acknowledges writes before they
reach disk, while PostgreSQL flushes every commit. """

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SETTINGS = ["--port", "0", "--save", "", "--appendonly", "no"]


def binary() -> str | None:
    return shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)


def version() -> str:
    exe = binary()
    if exe is None:
        return "not installed"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    return out.split(" v=")[1].split()[0] if " v=" in out else out.strip()


def ping(path: str, timeout_s: float = 1.0) -> bool:
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(timeout_s)
            s.connect(path)
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_server() -> Iterator[str]:
    """Start redis-server on a fresh Unix socket; yields the socket's path."""
    exe = binary()
    if exe is None:
        raise RuntimeError("redis-server is not installed (bench/install-deps installs Debian's redis-server)")
    home = Path(tempfile.mkdtemp(prefix="pgq-bench-redis-", dir="/var/tmp"))
    sock = str(home / "redis.sock")
    log = open(home / "redis.log", "w")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(
        [exe, *SETTINGS, "--unixsocket", sock, "--unixsocketperm", "700", "--dir", str(home),
         "--daemonize", "no"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 10
        while not ping(sock):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {(home / 'redis.log').read_text()[-1000:]}")
            time.sleep(0.02)
        yield sock
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
        shutil.rmtree(home, ignore_errors=True)
