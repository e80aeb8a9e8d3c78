"""Real worker processes (ledger_worker.py) for the suites: start, stop, kill, and read what they said."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

LEDGER_WORKER = Path(__file__).resolve().parent / "ledger_worker.py"


@dataclass
class WorkerProcess:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    out: Path
    killed: bool = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def events(self) -> list[dict[str, Any]]:
        """The worker's structured log events (JSON lines on its stderr)."""
        rows = []
        for line in self.log.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
        return rows

    def summary(self) -> dict[str, Any] | None:
        for line in self.out.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                return dict(json.loads(line))
        return None

    def tracebacks(self) -> list[str]:
        text = self.log.read_text(errors="replace")
        return [part for part in text.split("Traceback (most recent call last)")[1:]]


@dataclass
class Fleet:
    """Worker processes on one database; everything left running is killed by :meth:`close`."""

    url: str
    logs: Path
    processes: list[WorkerProcess] = field(default_factory=list)

    def start(self, name: str, queue: str, *, concurrency: int = 2, batch_size: int | None = None,
              lease: float | None = None, poll_interval: float = 1.0, url: str | None = None) -> WorkerProcess:
        self.logs.mkdir(parents=True, exist_ok=True)
        args = [sys.executable, str(LEDGER_WORKER), "--queue", queue, "--concurrency", str(concurrency),
                "--name", name, "--poll-interval", str(poll_interval)]
        if batch_size is not None:
            args += ["--batch-size", str(batch_size)]
        if lease is not None:
            args += ["--lease", str(lease)]
        env = {**os.environ, "DATABASE_URL": url or self.url, "PYTHONUNBUFFERED": "1"}
        log, out = self.logs / f"{name}.log", self.logs / f"{name}.out"
        with log.open("wb") as err_file, out.open("wb") as out_file:
            proc = subprocess.Popen(args, env=env, stdout=out_file, stderr=err_file)
        self.processes.append(WorkerProcess(name, proc, log, out))
        return self.processes[-1]

    def live(self) -> list[WorkerProcess]:
        return [w for w in self.processes if w.alive()]

    def wait_ready(self, workers: list[WorkerProcess], timeout: float = 30.0) -> None:
        """Until each worker holds its listener connection (it claims only after that)."""
        names = {f"pgq-listener:{w.name}"[:63] for w in workers}
        dbname = conninfo_to_dict(self.url).get("dbname")
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.url, autocommit=True) as conn:
            while True:
                rows = conn.execute(
                    "select application_name from pg_stat_activity where datname = %s and application_name = any(%s)",
                    (dbname, list(names)),
                ).fetchall()
                if len(rows) >= len(names):
                    return
                dead = [w.name for w in workers if not w.alive()]
                assert not dead, f"workers exited before they were ready: {dead}: {self._tail(workers)}"
                assert time.monotonic() < deadline, f"workers not ready after {timeout} s"
                time.sleep(0.05)

    def kill(self, worker: WorkerProcess) -> None:
        worker.proc.send_signal(signal.SIGKILL)
        worker.proc.wait(10)
        worker.killed = True

    def stop_all(self, timeout: float = 30.0) -> None:
        """SIGTERM every live worker (graceful) and wait for it to exit 0."""
        live = self.live()
        for w in live:
            w.proc.send_signal(signal.SIGTERM)
        for w in live:
            code = w.proc.wait(timeout)
            assert code == 0, f"worker {w.name} exited with {code}: {self._tail([w])}"

    def close(self) -> None:
        for w in self.processes:
            if w.alive():
                w.proc.send_signal(signal.SIGKILL)
                w.proc.wait(10)

    def killed_pids(self) -> set[int]:
        return {w.pid for w in self.processes if w.killed}

    def event_counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for w in self.processes:
            counts.update(e.get("event", "?") for e in w.events())
        return counts

    def errors(self) -> list[dict[str, Any]]:
        """db_error events: database errors the worker does not treat as transient."""
        return [e for w in self.processes for e in w.events() if e.get("event") == "db_error"]

    def completed(self) -> int:
        return sum((w.summary() or {}).get("completed", 0) for w in self.processes)

    @staticmethod
    def _tail(workers: list[WorkerProcess]) -> str:
        return "\n".join(f"--- {w.name}\n{w.log.read_text(errors='replace')[-3000:]}" for w in workers)
