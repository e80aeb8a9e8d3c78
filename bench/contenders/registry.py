"""The contenders of the Python measurements, in the order the tables list them."""

from __future__ import annotations

from typing import Any

from ..cluster import Server
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
