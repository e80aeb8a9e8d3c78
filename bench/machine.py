"""The exact versions and the machine, for the report's header."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from .cluster import ROOT, Server
from .contenders import node, peer_pgmq

PACKAGES = ["psycopg", "psycopg-pool", "pgq-client", "procrastinate", "pgqueuer", "asyncpg", "matplotlib", "pgmq"]
SETTINGS = ["shared_buffers", "max_connections", "autovacuum_naptime", "synchronous_commit", "fsync", "wal_level"]


def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram() -> str:
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        return f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, AttributeError):
        return "unknown"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


class LoadSampler:
    """Samples the 1-minute load average every few seconds: the machine may be shared."""

    def __init__(self, every_s: float = 5.0) -> None:
        self.every_s = every_s
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.samples.append(os.getloadavg()[0])

    def start(self) -> LoadSampler:
        self._thread.start()
        return self

    def stop(self) -> str:
        self._stop.set()
        self._thread.join(self.every_s + 1)
        if not self.samples:
            return "not sampled"
        v = sorted(self.samples)
        return (f"min {v[0]:.2f}, median {v[len(v) // 2]:.2f}, max {v[-1]:.2f} ({len(v)} samples; "
                f"{os.cpu_count()} CPUs: above that, other work competed with the benchmark)")


def fsync_rate(directory: Path, seconds: float = 4.0) -> str:
    """fdatasync of one 8 kB write per second, from the first lines of pg_test_fsync (stopped early)."""
    binary = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_test_fsync"))), None)
    if binary is None:
        return "pg_test_fsync not found"
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=directory, prefix="fsync_test") as f:
        proc = subprocess.Popen([str(binary), "-s", "1", "-f", f.name], stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + seconds + 10
        found = ""
        assert proc.stdout is not None
        for line in proc.stdout:
            m = re.search(r"fdatasync\s+([0-9.,]+) ops/sec", line)
            if m:
                found = f"{m.group(1)} fdatasync/s (8 kB writes, pg_test_fsync)"
                break
            if time.monotonic() > deadline:
                break
        proc.kill()
        proc.wait()
    return found or "unknown"


def _tool(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "not found"


def describe(server: Server, fsync_dir: Path) -> dict[str, str]:
    with server.connect() as conn:
        pg = conn.execute("select version()").fetchone()[0]
        settings = ", ".join(
            f"{s}={conn.execute('select current_setting(%s)', (s,)).fetchone()[0]}" for s in SETTINGS
        )
    head = _tool([str(Path(sys.executable).parent / "alembic"), "-c", str(ROOT / "alembic.ini"), "heads"])
    sha = _tool(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    dirty = _tool(["git", "-C", str(ROOT), "status", "--porcelain", "--", "sql", "alembic", "python_client"])
    env = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "PostgreSQL": pg,
        "server settings": settings,
        "server": "the harness's own cluster (.pg-bench)" if server.own else "DATABASE_URL (the user's server)",
        "pgq": f"alembic head {head}, commit {sha}"
        + (" with uncommitted changes under sql/, alembic/ or python_client/" if dirty != "not found" else ""),
        "Python": platform.python_version(),
    }
    env.update({pkg: _version(pkg) for pkg in PACKAGES})
    env["pgmq SQL"] = peer_pgmq.sql_version()
    env.update(node.versions())
    env["pgbench"] = _tool(["pgbench", "--version"])
    env["PgBouncer"] = _tool(["/usr/sbin/pgbouncer", "--version"])
    env["machine"] = f"{os.cpu_count()} CPUs ({_cpu_model()}), {_ram()} RAM, {platform.platform()}"
    env["disk"] = fsync_rate(fsync_dir)
    return env
