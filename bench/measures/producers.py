"""4b. Concurrent producers (design.md#wake-ups-on-demand): one `q.enqueue` per transaction from 1 to
200 pgbench clients.

PostgreSQL holds one cluster-wide lock through the whole commit of every
transaction that sent a NOTIFY, so when every enqueue notified, producers
committed one at a time. Since revision 0008 an enqueue notifies only while a
worker waits for its queue (q_data.waiter), and since 0009 only once per wait (the first enqueue
that finds the wait takes it). Side by side, at each producer
count, the same pgbench script (`select q.enqueue('nb', '{"a":1}')`, prepared):

* pgq, wake-ups on, with a pgq Worker (listening, no-op handler) on the queue,
  idle and waiting when the run starts: the case the wake-up exists for;
* pgq, the same Worker, producers with `pgq.notify = off` (it finds the jobs by
  polling): what the wake-up costs;
* pgq with no worker at all (nobody waits: the trigger reads and sends nothing);
* a plain INSERT into an equivalent table (identity key, jsonb payload, one
  partial index): the floor the SQL function's work sits on;
* pgmq's `pgmq.send` into its queue, when pgmq is installed (no notifications, as
  in section 4).

A LISTEN session counts the NOTIFYs each run sent. Each run starts from an
empty table, vacuumed; the order alternates from one repetition to the next.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import Any

import psycopg

from .. import databases, pgbench, verdicts
from ..contenders import peer_pgmq
from ..context import Context
from ..model import Section, Table, Target
from ..stats import median, rate, ratio

DB = "bench_producers"
QUEUE = "nb"
PAYLOAD = '{"a":1}'
RESERVE = 20  # connections left for the worker (listener, pool), the counting listener and the harness

ON, OFF, NOBODY, PLAIN, PGMQ = "on", "off", "nobody", "plain", "pgmq"
LABELS = {
    ON: "pgq `q.enqueue`, wake-ups on, a worker waiting",
    OFF: "pgq `q.enqueue`, `pgq.notify = off`, the same worker polling",
    NOBODY: "pgq `q.enqueue`, no worker (nobody waits)",
    PLAIN: "plain INSERT into an equivalent table",
    PGMQ: "pgmq `pgmq.send`",
}
PLAIN_TABLE = """
create table plain_job (
  id       bigint generated always as identity primary key,
  queue    text        not null,
  payload  jsonb       not null,
  state    "char"      not null default 'w',
  priority smallint    not null default 0,
  run_at   timestamptz not null default now()
);
create index plain_job_claim_idx on plain_job (queue, priority desc, run_at) where state = 'w';
"""


def script(variant: str) -> str:
    """The pgbench script of a variant: one statement, one transaction."""
    if variant == PLAIN:
        return f"insert into plain_job (queue, payload) values ('{QUEUE}', '{PAYLOAD}');\n"
    if variant == PGMQ:
        return f"select pgmq.send('{peer_pgmq.QUEUE}', '{PAYLOAD}'::jsonb);\n"
    return f"select q.enqueue('{QUEUE}', '{PAYLOAD}');\n"


def pgoptions(variant: str) -> str:
    """PGOPTIONS for the producers: wake-ups off in the "off" variant only."""
    return "-c pgq.notify=off" if variant == OFF else ""


def producer_counts(wanted: tuple[int, ...], max_connections: int, reserve: int = RESERVE) -> list[int]:
    """The producer counts the server has connections for (a count above it runs at the most it allows)."""
    room = max(1, max_connections - reserve)
    return sorted({min(n, room) for n in wanted})


def targets(med: dict[tuple[str, int], float], counts: list[int]) -> list[Target]:
    """The targets at 8 and 50 producers (design.md#wake-ups-on-demand): on ≥ 0.9x off, ≥ 0.8x plain
    INSERT, ahead of pgmq's send."""
    out: list[Target] = []
    for n in (8, 50):
        if n not in counts:
            continue
        on, off, plain = med.get((ON, n)), med.get((OFF, n)), med.get((PLAIN, n))
        for label, other, floor in (("wake-ups off", off, 0.9), ("a plain INSERT", plain, 0.8)):
            name = f"{n} producers: pgq with wake-ups ≥ {floor}x {label}"
            if on is None or other is None:
                out.append(Target(name=name, holds=None, detail=f"{label} not measured in this run"))
                continue
            r = ratio(on, other)
            out.append(Target(name=name, holds=r >= floor, detail=f"{r:.2f} ({rate(on)} vs {rate(other)} tx/s)"))
        out.append(verdicts.ahead(f"{n} producers: pgq with wake-ups ahead of pgmq's send",
                                  ("pgq", on), ("pgmq", med.get((PGMQ, n)))))
    return out


class Notices:
    """A LISTEN session on channel pgq that counts what arrives while a run lasts."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.count = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Notices:
        conn = psycopg.connect(self.dsn, autocommit=True)
        conn.execute("listen pgq")

        def loop() -> None:
            with conn:
                while not self._stop.is_set():
                    for _ in conn.notifies(timeout=0.2):
                        self.count += 1

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep(0.3)  # the last commits' notifications
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)


def _worker(dsn: str) -> Any:
    """A pgq Worker on the queue, listening, with a no-op handler; started and idle (waiting) on return."""
    from pgq_client import Worker

    worker = Worker(lambda payload: None, QUEUE, database_url=dsn, concurrency=10, poll_interval=1.0).start()
    deadline = time.monotonic() + 15
    with psycopg.connect(dsn, autocommit=True) as conn:
        while not conn.execute("select count(*) from q_data.waiter where queue = %s", (QUEUE,)).fetchone()[0]:
            if time.monotonic() > deadline:
                worker.stop()
                raise RuntimeError("the bench worker did not start waiting for its queue within 15 s")
            time.sleep(0.05)
    return worker


def run(ctx: Context) -> Section:
    p, srv = ctx.profile, ctx.server
    dsn = databases.new_pgq(srv, DB)
    with srv.connect(DB) as conn:
        conn.execute(PLAIN_TABLE)
        conn.execute("select q.configure(%s)", (QUEUE,))
    pgmq = None
    why = peer_pgmq.missing()
    skipped = [f"**Skipped: pgmq**: {why}."] if why else []
    if why is None:
        pgmq = peer_pgmq.Pgmq(srv, f"{DB}_pgmq")
        pgmq.setup()
    variants = [ON, OFF, NOBODY, PLAIN] + ([PGMQ] if pgmq else [])
    counts = producer_counts(p.producers_clients, int(srv.setting("max_connections")))
    res: dict[tuple[str, int], list[float]] = defaultdict(list)
    notifies: dict[tuple[str, int], list[float]] = defaultdict(list)

    def empty() -> None:
        with srv.connect(DB) as conn:
            conn.execute("truncate q_data.job, q_data.job_history, plain_job")
            conn.execute("vacuum (analyze) q_data.job, plain_job")
        if pgmq is not None:
            pgmq.load(0)

    def one(variant: str, clients: int) -> None:
        empty()
        worker = _worker(dsn) if variant in (ON, OFF) else None
        db = pgmq.dbname if variant == PGMQ and pgmq is not None else DB
        try:
            with Notices(dsn) as heard:
                r = pgbench.run(srv, db, script(variant), clients, p.producers_seconds, mode="prepared",
                                options=pgoptions(variant), transactions=p.pgbench_transactions)
        finally:
            if worker is not None:
                worker.stop()
                worker.join(15)
        res[(variant, clients)].append(r.tps)
        if variant in (ON, OFF, NOBODY):
            # Enqueues in the run: by count in the quick profile (-t), else the rate times the run's length.
            enqueues = (p.pgbench_transactions * clients if p.pgbench_transactions
                        else r.tps * p.producers_seconds)
            sent = heard.count / enqueues * 1000 if enqueues else float("nan")
            notifies[(variant, clients)].append(sent)

    try:
        for rep in range(p.reps):
            for clients in counts:
                for variant in ctx.order(variants, rep):
                    one(variant, clients)
                ctx.log(f"producers: run {rep + 1}, {clients} producers done")
    finally:
        if pgmq is not None:
            pgmq.close()
    med = {k: median(v) for k, v in res.items()}
    rows = [[LABELS[v]] + [rate(med[(v, n)]) for n in counts] for v in variants]
    per_k = [[LABELS[v]] + [f"{median(notifies[(v, n)]):.1f}" for n in counts] for v in (ON, OFF, NOBODY)]
    length = (f"{p.pgbench_transactions} transactions per producer" if p.pgbench_transactions
              else f"{p.producers_seconds} s per run")
    sec = Section(
        key="producers",
        title="4b. Concurrent producers",
        method=(
            f"pgbench, prepared, one statement per transaction, {length}, at {', '.join(map(str, counts))} "
            f"producers (at most max_connections - {RESERVE}); the variants as in bench/measures/producers.py: "
            "pgq with a listening Worker (10 slots, no-op handler) waiting on the queue when the run starts, "
            "the same with the producers' `pgq.notify = off`, pgq with no worker, a plain INSERT into a table "
            "with an identity key and one partial index, and pgmq's `send` when installed. Every run starts "
            f"from an empty, vacuumed table. Median of {p.reps} runs."
        ),
        tables=[
            Table(caption=f"transactions (enqueues) per second, median of {p.reps}",
                  headers=["producers"] + [str(n) for n in counts], rows=rows),
            Table(caption="NOTIFYs sent per 1,000 enqueues (a separate LISTEN session counts them)",
                  headers=["producers"] + [str(n) for n in counts], rows=per_k),
        ],
        seed=("Issue 22, before wake-ups on demand (b67a1f1, idle machine, 50 producers): 1,024-1,665 tx/s "
              "with every enqueue notifying, 3,362-3,493 with pgq.notify = off, 10,249-10,440 for a plain INSERT."),
        notes=skipped,
        data={"tps": {f"{k[0]}|{k[1]}": v for k, v in res.items()},
              "notifies_per_1000": {f"{k[0]}|{k[1]}": v for k, v in notifies.items()}},
    )
    sec.targets.extend(targets(med, counts))
    return sec

