"""The Node benchmark's contenders (design.md#the-node-benchmark): pg-boss, BullMQ on Redis, BullMQ on
PostgreSQL (bench/node/).

Each adapter drives one `node bench/node/harness.mjs` process over JSON lines
(request on stdin, reply on stdout) and offers the same methods as the Python
contenders (see base.py), so the measures treat them alike. Every figure is
timed inside Node around the library calls. The PostgreSQL contenders get a
fresh database of the bench cluster each; BullMQ on Redis gets a redis-server
of its own (bench/redis.py), started in `setup` and stopped in `close`.

`dsn` is where a contender's data lives: a libpq DSN, or for BullMQ on Redis
the socket of its server (a pickup producer in another process reaches it so).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from .. import redis
from ..cluster import Server
from .base import WorkResult

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
HARNESS = NODE_DIR / "harness.mjs"
PACKAGES = ("pg-boss", "bullmq", "pg", "ioredis")


def node_binary() -> str | None:
    return shutil.which("node")


def missing() -> str | None:
    """Why the Node contenders cannot run here, or None when they can."""
    if node_binary() is None:
        return "node is not installed"
    absent = [p for p in PACKAGES if not (NODE_DIR / "node_modules" / p / "package.json").exists()]
    if absent:
        return (f"bench/node/node_modules lacks {', '.join(absent)} (bench/install-deps runs `npm ci` from "
                "bench/node/package-lock.json; it failed or npm is missing)")
    return None


def versions() -> dict[str, str]:
    """node and the pinned npm packages as installed, for the report's header."""
    out: dict[str, str] = {}
    node = node_binary()
    if node:
        out["node"] = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    for p in PACKAGES:
        f = NODE_DIR / "node_modules" / p / "package.json"
        out[f"npm {p}"] = json.loads(f.read_text())["version"] if f.exists() else "not installed"
    out["redis-server"] = redis.version()
    return out


class Harness:
    """One node process: requests and replies in order, events to a callback."""

    def __init__(self, on_event: Callable[[dict[str, Any]], None]) -> None:
        self.on_event = on_event
        self.proc = subprocess.Popen(
            [node_binary() or "node", str(HARNESS)], cwd=NODE_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=None, text=True, bufsize=1,
        )
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "event" in msg:
                self.on_event(msg)
            else:
                self.replies.put(msg)
        self.replies.put({"ok": False, "error": f"node exited ({self.proc.poll()})"})

    def request(self, op: str, timeout_s: float = 900, **args: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.proc.stdin.flush()
        reply = self.replies.get(timeout=timeout_s)
        if not reply.get("ok"):
            raise RuntimeError(f"node harness {op}: {reply.get('error')}")
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.request("close", timeout_s=30)
            except (RuntimeError, queue.Empty, BrokenPipeError, OSError):
                pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


class NodeContender:
    kind = ""
    name = ""
    batches: tuple[int, ...] = (1,)
    uses_postgres = True
    settings = ""

    def __init__(self, server: Server | None, dbname: str | None = None) -> None:
        self.server = server
        self.dbname = dbname or f"bench_{self.kind.replace('-', '_')}"
        self.dsn = ""
        self.on_job: Callable[[dict[str, Any]], None] | None = None
        self.package_versions: dict[str, str] = {}
        self._stack = ExitStack()
        self._h: Harness | None = None
        self._claimed = threading.Event()

    def batch_label(self, batch: int) -> str:
        return f"concurrency = workers{'' if batch == 1 else f', batch {batch}'}"

    # -- plumbing
    def _event(self, msg: dict[str, Any]) -> None:
        if msg["event"] == "claimed":
            self._claimed.set()
        elif msg["event"] == "job" and self.on_job is not None:
            p = dict(msg["payload"])
            if "t" in p:
                # The handler started at msg["at"]; the pipe to Python is not
                # part of the pickup: shift t so that now - t == at - t.
                p["t"] = p["t"] + (time.time() - msg["at"])
            self.on_job(p)

    def _target(self) -> dict[str, Any]:
        if not self.uses_postgres:
            return {"path": self.dsn}
        p = conninfo_to_dict(self.dsn)
        t: dict[str, Any] = {"host": p.get("host"), "port": int(p.get("port", 5432)), "user": p.get("user"),
                             "database": p.get("dbname")}
        if p.get("password"):
            t["password"] = p["password"]
        return t

    def _start(self) -> Harness:
        h = Harness(self._event)
        reply = h.request("setup", kind=self.kind, target=self._target(), timeout_s=120)
        self.package_versions = reply.get("versions", {})
        return h

    @property
    def h(self) -> Harness:
        if self._h is None:
            self._h = self._start()
        return self._h

    # -- the contender interface (base.Contender)
    def setup(self) -> None:
        assert self.server is not None
        if self.uses_postgres:
            self.dsn = self.server.recreate(self.dbname)
        else:
            self.dsn = self._stack.enter_context(redis.redis_server())
        self._h = self._start()

    def _vacuum(self) -> None:
        if self.uses_postgres:
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute("vacuum (analyze)")

    def load(self, n: int) -> None:
        """Empty the queue, then n waiting jobs through the library's bulk call, vacuumed (not timed)."""
        self.h.request("load", n=n)
        self._vacuum()

    def enqueue_one(self, n: int) -> float:
        return float(self.h.request("enqueue_one", n=n)["seconds"])

    def enqueue_inflight(self, n: int, inflight: int) -> float:
        return float(self.h.request("enqueue_inflight", n=n, inflight=inflight)["seconds"])

    def enqueue_bulk(self, n: int, per_call: int) -> float:
        return float(self.h.request("enqueue_bulk", n=n, per_call=per_call)["seconds"])

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult:
        r = self.h.request("work", workers=workers, batch=batch, expect=expect, cap_s=cap_s, sleep_s=sleep_s,
                           timeout_s=cap_s + 120)
        return WorkResult(done=int(r["done"]), seconds=float(r["seconds"]), capped=bool(r["capped"]))

    def serve(self, workers: int, until: Callable[[], bool], timeout_s: float, recovery: bool = False) -> None:
        self.h.request("serve", workers=workers, recovery=recovery, timeout_s=60)
        deadline = time.monotonic() + timeout_s
        while not until() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.h.request("stop_serving", timeout_s=60)

    def enqueue_timed(self, n: int, per_second: float) -> None:
        try:
            self.h.request("enqueue_timed", n=n, per_second=per_second, timeout_s=n / per_second + 120)
        finally:
            self.h.close()

    def hold(self) -> Harness:
        """A second node process whose worker claims the only job and never finishes it (killed-worker row)."""
        self._claimed.clear()
        h = Harness(self._event)
        h.request("setup", kind=self.kind, target=self._target(), timeout_s=120)
        h.request("hold", timeout_s=60)
        if not self._claimed.wait(30):
            h.kill()
            raise RuntimeError(f"{self.name}: the holding worker never claimed the job")
        return h

    def size_bytes(self) -> int | None:
        """Memory of the Redis server (BullMQ on Redis); None: measure the database instead."""
        b = self.h.request("size")["bytes"]
        return None if b is None else int(b)

    def close(self) -> None:
        if self._h is not None:
            self._h.close()
            self._h = None
        self._stack.close()
        if self.uses_postgres and self.server is not None:
            self.server.drop(self.dbname)


class PgBoss(NodeContender):
    kind = "pgboss"
    name = "pg-boss"
    batches = (1, 50)
    settings = ("pg-boss: `useListenNotify: true`, queue `notify: true`, `localConcurrency` = workers, "
                "`batchSize` = batch with `burstWhenBatchFull` (batch 1 is its default: a 2 s poll between fetches)")

    def batch_label(self, batch: int) -> str:
        return "batchSize 1 (default)" if batch == 1 else f"batchSize {batch} + burstWhenBatchFull"


class BullMQRedis(NodeContender):
    kind = "bullmq-redis"
    name = "BullMQ on Redis"
    uses_postgres = False
    settings = ("BullMQ: Worker `concurrency` = workers (no batch setting outside BullMQ Pro), "
                "`removeOnComplete`/`removeOnFail`; on Redis through ioredis over a Unix socket to a "
                "redis-server of the bench's own (`--save \"\" --appendonly no`)")


class BullMQPostgres(NodeContender):
    kind = "bullmq-postgres"
    name = "BullMQ on PostgreSQL"
    settings = "BullMQ on PostgreSQL: `createPostgresBackend`, pool of 20, `migrate: true`, same Worker settings"


ALL: tuple[type[NodeContender], ...] = (PgBoss, BullMQRedis, BullMQPostgres)


def available(server: Server) -> tuple[list[NodeContender], list[str]]:
    """The Node contenders that can run here, and a note for each one skipped (never an error)."""
    why = missing()
    if why is not None:
        return [], [f"**Skipped: pg-boss, BullMQ on Redis and BullMQ on PostgreSQL**: {why}."]
    out: list[NodeContender] = []
    notes: list[str] = []
    for cls in ALL:
        if not cls.uses_postgres and redis.binary() is None:
            notes.append(f"**Skipped: {cls.name}**: redis-server is not installed (bench/install-deps "
                         "installs Debian's `redis-server`).")
            continue
        out.append(cls(server))
    return out, notes
