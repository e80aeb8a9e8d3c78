"""The contenders of the Python measurements, in the order the tables list them."""

from __future__ import annotations

from typing import Any

from ..cluster import Server
from . import node, peer_pgmq
from .peer_pgqueuer import Pgqueuer
from .peer_procrastinate import Procrastinate
from .pgq_thin import PgqThin
from .pgq_worker import PgqWorker
from .seed004 import Seed004

PGQ_THIN = PgqThin.name
SEED004 = Seed004.name
PGQ_WORKER = PgqWorker.name
PEERS = ("procrastinate", "pgqueuer")
# The Worker claims up to its free slots per call: its "batch" is its default.
WORKER_DEFAULT_BATCH = 0

SETTINGS_NOTE = (
    "Peers at their fastest documented settings: procrastinate with its psycopg connector, "
    "`listen_notify=True`, `delete_jobs=\"always\"` (no finished rows kept), async no-op task, "
    "`concurrency` = workers (it fetches one job per query, so it has no batch setting); "
    "pgqueuer with asyncpg, durability `balanced` (queue table logged, log/statistics tables unlogged), "
    "`batch_size` = batch, one QueueManager (own connection) per worker, no entrypoint concurrency_limit "
    "(its SQL-enforced limit cut batch 50 to 10 jobs/s)."
)


def drainers(server: Server) -> list[Any]:
    out: list[Any] = [PgqThin(server), Seed004(server)]
    for c in out:
        c.batches = (1, 50)
    return [out[0], PgqWorker(server), out[1], Procrastinate(server), Pgqueuer(server)]


def others(server: Server, *, node_ones: bool = True, pgmq: bool = True) -> tuple[list[Any], list[str]]:
    """pgmq and the Node benchmark's contenders (pg-boss, BullMQ on Redis/PostgreSQL) that can run here,
    and a note for each one skipped and why (a missing tool is never an error)."""
    out: list[Any] = []
    notes: list[str] = []
    if pgmq:
        found, why = peer_pgmq.available(server)
        out += found
        notes += why
    if node_ones:
        found, why = node.available(server)
        out += found
        notes += why
    return out, notes


def settings_notes(contenders: list[Any]) -> str:
    """One sentence per non-Python-peer contender that ran: its settings."""
    parts = [c.settings for c in contenders if getattr(c, "settings", "")]
    if any(isinstance(c, peer_pgmq.Pgmq) for c in contenders):
        parts.insert(0, PGMQ_SETTINGS)
    return " ".join(p.rstrip(".") + "." for p in parts)


PGMQ_SETTINGS = (
    "pgmq: SQL-only install from PyPI's pgmq package (its bundled pgmq.sql), `pgmq.read(queue, 30, qty)` then "
    "`pgmq.delete(queue, ids)`, two autocommit transactions per batch, one thread and connection per worker; "
    "enqueue through `pgmq.send` / `pgmq.send_batch` without its optional insert notifications"
)
