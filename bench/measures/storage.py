"""7. Bytes per waiting job (design.md#the-node-benchmark): growth of all tables + indexes for 100,000 waiting jobs."""

from __future__ import annotations

from typing import Any

import psycopg

from .. import verdicts
from ..contenders import registry
from ..contenders.peer_pgqueuer import Pgqueuer
from ..contenders.peer_procrastinate import Procrastinate
from ..contenders.pgq_thin import PgqThin
from ..contenders.seed004 import Seed004
from ..context import Context
from ..model import Section, Table, Target

SIZE = (
    "select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c"
    " join pg_namespace n on n.oid = c.relnamespace"
    " where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')"
)
PER_CALL = 500


def _size(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("checkpoint")
        return int(conn.execute(SIZE).fetchone()[0])


def _measure(c: Any) -> int:
    """Bytes the contender's store holds: Redis' used_memory for BullMQ on Redis, else the database's relations."""
    own = c.size_bytes() if hasattr(c, "size_bytes") else None
    return own if own is not None else _size(c.dsn)


def run(ctx: Context) -> Section:
    n = ctx.profile.storage_jobs
    rows = []
    per: dict[str, float] = {}
    more, skipped = registry.others(ctx.server)
    for c in [PgqThin(ctx.server), Seed004(ctx.server), Procrastinate(ctx.server), Pgqueuer(ctx.server), *more]:
        c.setup()
        try:
            before = _measure(c)
            c.enqueue_bulk(n, PER_CALL)
            after = _measure(c)
        finally:
            c.close()
        per[c.name] = (after - before) / n
        rows.append([c.name, f"{(after - before) / 1e6:.1f} MB", f"{per[c.name]:.0f}"])
    ctx.log("storage: done")
    pgq = per[PgqThin.name]
    return Section(
        key="storage",
        title="7. Bytes per waiting job",
        method=(
            f"{n:,} waiting jobs with seed 004's ~70-byte payload, enqueued in bulk calls of {PER_CALL} into a "
            "fresh database; the figure is the growth of every table of the database with its indexes and "
            "TOAST (`pg_total_relation_size`), not vacuumed; for BullMQ on Redis the growth of Redis' "
            "`used_memory` (RAM). One run each (sizes do not vary)."
        ),
        tables=[Table(caption=f"{n:,} waiting jobs", headers=["contender", "growth", "bytes per job"], rows=rows)],
        targets=[Target(name="at most 180 bytes per waiting job", holds=pgq <= 180, detail=f"{pgq:.0f} bytes")]
        + [verdicts.ahead(f"bytes per waiting job: pgq smaller than {o}", ("pgq", pgq), (o, per[o]),
                          higher_is_better=False) for o in ("pgmq (SQL-only install)", "pg-boss",
                                                            "BullMQ on PostgreSQL") if o in per],
        notes=skipped,
        seed=(
            "Seed 004: hand-written table + index 213 bytes, pg-boss 297, BullMQ on Postgres 576; issue 4: pgmq "
            "180, procrastinate 381, pgqueuer 471."
        ),
        data={"bytes_per_job": per},
    )
