"""A worker's options, declared once.

Each field of :class:`WorkerOptions` carries its default, its help text and
its command-line flag. The same declaration builds :class:`~pgq_client.Worker`'s
and :class:`~pgq_client.AsyncWorker`'s keyword arguments (checked here), the
``pgq worker`` options (:mod:`pgq_client.cli`) and the README's table (a test
compares them: ``tests/unit/test_options.py``). Add an option here and it
appears in all three.

Per-queue settings (handler, payload model, concurrency, batch size, lease)
belong to a :class:`Lane`: a plain ``Worker(handler, queues)`` has one, an
:class:`~pgq_client.App` one per task. Which value a task gets is decided in
one place, :class:`TaskSettings` (the precedence rule is stated there).
"""

from __future__ import annotations

import math
import os
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import timedelta
from typing import Any

# Claim loops when both batch_size and claim_loops are left automatic: enough
# rounds in flight for their commits to overlap, few enough that claims stay large.
AUTO_LOOPS = 4
# With automatic batch sizing, one claim asks for at most this many times the
# concurrency: rounds of no-op jobs measured ~25k jobs/s at 5x, ~40k at 20x
# (2 cores, concurrency 10); per-round costs (a commit, ~0.3 ms of CPU on
# each side) dominate small rounds.
AUTO_CLAIM_FACTOR = 20
# q.check_queue_name's rule, checked before anything is sent.
QUEUE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$")
# libpq's environment: any of these set means "connect where they say".
LIBPQ_ENV = ("PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE")


def option(default: Any, help: str, *, flag: str | None = None, doc_default: str | None = None,  # noqa: A002
           cli: bool = True, cli_type: Any = None, minimum: float | None = None, maximum: float | None = None,
           default_factory: Any = None) -> Any:
    """A dataclass field with the metadata the CLI and the docs table read."""
    meta = {"help": help, "flag": flag, "doc_default": doc_default, "cli": cli, "cli_type": cli_type,
            "min": minimum, "max": maximum}
    if default_factory is not None:
        return field(default_factory=default_factory, metadata=meta)
    return field(default=default, metadata=meta)


def check_queue_name(name: Any) -> str:
    """The name, if it is a valid queue name (q.check_queue_name's rule); ValueError naming it otherwise."""
    if not isinstance(name, str) or not QUEUE_NAME.match(name):
        raise ValueError(
            f"invalid queue name {name!r}: 1 to 63 characters, letters, digits and _ . : -, "
            "starting with a letter or digit"
        )
    return name


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker connects, claims and stops (shared by every lane of the worker).

    Precedence, for an :class:`~pgq_client.App`'s worker: the worker's own
    arguments (``pgq worker`` flags, ``app.worker()``/``app.run_worker()``
    keywords) > ``App(...)`` > the default declared here. The per-task ones,
    ``concurrency``, ``batch_size`` and ``lease`` (:data:`TASK_SETTINGS`),
    also have a task level: worker arguments > ``@app.task(...)`` >
    ``App(...)`` > default (:class:`TaskSettings`). A flag not given on the
    command line is not an argument: it never hides the App's value.
    """

    database_url: str = option(
        "", "libpq URL or key=value string", doc_default="`$DATABASE_URL`", cli=False)
    concurrency: int = option(
        10, "handlers running at once (threads; tasks for the async worker); an App: per task. Connections:"
            " claim loops + 1 pooled ones from the start, up to one more per handler while handlers use"
            " job.connection(), plus the listener", minimum=1)
    batch_size: int | None = option(
        None, "most jobs per `q.claim`; an App: per task. A lane holds at most max(batch_size, concurrency) jobs."
              " Automatic ="
              " the concurrency plus a prefetch sized by Little's law, a round trip's worth of jobs per claim"
              " loop (short jobs: claims of up to 20x the concurrency, at most 1000; long jobs: none, so no job"
              " waits behind a busy one)", doc_default="automatic", minimum=1, maximum=1000)
    claim_loops: int | None = option(
        None, "round trips kept in flight at once, each on its own pooled connection: the sum over the tasks of"
              " ceil(concurrency / batch_size) with batch_size given, else 4; never more than the concurrency",
        doc_default="automatic", minimum=1, maximum=1000)
    lease: timedelta | None = option(
        None, "claim lease in seconds; heartbeats renew it every lease/3; an App: per task", doc_default="the queue's",
        cli_type=float, minimum=1)
    poll_interval: float = option(
        1.0, "seconds between claims when no NOTIFY comes (always on)", doc_default="1.0 s", minimum=0.01)
    listen: bool = option(
        True, "wake on `NOTIFY pgq` (off: poll only)", flag="--listen/--no-listen", doc_default="true")
    pgbouncer: bool = option(
        False, "behind PgBouncer in transaction mode: no LISTEN, lease-only claims, no prepared statements"
               " (see PgBouncer)", flag="--pgbouncer", doc_default="false")
    grace_period: float = option(
        20.0, "seconds running jobs get to finish after SIGTERM/SIGINT", doc_default="20 s", minimum=0)
    reap_interval: float = option(
        1.0, "seconds between this worker's turns at `q.reap`", doc_default="1.0 s", minimum=0.01)
    name: str = option(
        "", "this worker's name in logs and application_name", doc_default="host:pid",
        default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    connect_kwargs: dict[str, Any] = option(
        None, "extra psycopg.connect keyword arguments", doc_default="{}", cli=False, default_factory=dict)
    metrics_port: int | None = option(
        None, "serve this worker's Prometheus metrics at http://metrics_host:port/metrics (the `metrics` extra);"
              " 0 picks a free port (`worker.metrics_address` says which)", doc_default="off", minimum=0,
        maximum=65535)
    metrics_host: str = option(
        "127.0.0.1", "the address the metrics endpoint listens on (0.0.0.0: every interface)",
        doc_default="127.0.0.1")

    @classmethod
    def build(cls, base: WorkerOptions | None = None, **given: Any) -> WorkerOptions:
        """Options from keyword arguments (None means "the default"), checked; TypeError names an unknown one."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise TypeError(f"unknown worker option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        values = {k: v for k, v in given.items() if v is not None or k in ("batch_size", "claim_loops", "lease")}
        lease = values.get("lease")
        if isinstance(lease, (int, float)) and not isinstance(lease, bool):
            values["lease"] = timedelta(seconds=lease)
        options = replace(base, **values) if base is not None else cls(**values)
        options.check()
        return options

    @staticmethod
    def concurrency_default() -> int:
        return int(WorkerOptions.__dataclass_fields__["concurrency"].default)  # type: ignore[arg-type]

    def check(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.batch_size is not None and not 1 <= self.batch_size <= 1000:
            raise ValueError(f"batch_size must be between 1 and 1000, got {self.batch_size}")
        if self.claim_loops is not None and not 1 <= self.claim_loops <= 1000:
            raise ValueError(f"claim_loops must be between 1 and 1000, got {self.claim_loops}")
        if self.lease is not None and self.lease.total_seconds() < 1:
            raise ValueError(f"lease must be at least 1 second, got {self.lease}")
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise ValueError(f"metrics_port must be between 0 and 65535, got {self.metrics_port}")
        if self.poll_interval <= 0 or self.reap_interval <= 0 or self.grace_period < 0:
            raise ValueError("poll_interval and reap_interval must be positive and grace_period not negative")

    def resolved_url(self) -> str:
        """database_url, else $DATABASE_URL; "" only when libpq's own PG* variables say where to connect."""
        url = self.database_url or os.environ.get("DATABASE_URL", "")
        if not url and not any(os.environ.get(v) for v in LIBPQ_ENV):
            raise ValueError("no database: set DATABASE_URL (or pass database_url=..., or PGHOST/PGDATABASE)")
        return url

    @property
    def loops(self) -> int:
        """Claim loops that keep rounds in flight at once, each on its own pooled connection.

        claim_loops if given, else ceil(concurrency / batch_size) with batch_size
        given (every loop's claim can be a full batch), else min(AUTO_LOOPS,
        concurrency); never more than the concurrency (a loop claims at least one job).
        """
        if self.claim_loops is not None:
            return max(1, min(self.claim_loops, self.concurrency))
        return auto_loops([(self.concurrency, self.batch_size)])

    @property
    def uses_listener(self) -> bool:
        """A dedicated direct connection holds the liveness key (and LISTENs): not behind PgBouncer."""
        return not self.pgbouncer

    def connection_kwargs(self, role: str) -> dict[str, Any]:
        """psycopg.connect keyword arguments: the pool ("worker"), the listener ("listener"), the checks ("startup")."""
        kwargs: dict[str, Any] = {"autocommit": True, "application_name": f"pgq-{role}:{self.name}"[:63]}
        if self.pgbouncer:
            # Transaction pooling: no named prepared statements, no session state.
            kwargs["prepare_threshold"] = None
        kwargs.update(self.connect_kwargs)
        return kwargs

    @property
    def pool_size(self) -> int:
        """The pool's most connections: one per claim loop, one for heartbeats and the reaper (those
        :attr:`pool_min_size` are opened at start), and one per handler slot, opened only while
        handlers hold one (``job.connection()``). The listener's connection is outside the pool."""
        return self.pool_min_size + self.concurrency

    @property
    def pool_min_size(self) -> int:
        """Connections the pool opens at start and keeps: the claim loops' and the maintenance loop's."""
        return self.loops + 1


def auto_loops(lanes: Iterable[tuple[int, int | None]]) -> int:
    """Automatic claim loops for lanes of (concurrency, batch_size): one per full batch of each lane
    with a batch_size (ceil(concurrency / batch_size)), at least AUTO_LOOPS when a lane sizes its
    claims itself; never more than the total concurrency (a loop claims at least one job)."""
    pairs = list(lanes)
    total = sum(c for c, _ in pairs)
    fixed = sum(math.ceil(c / b) for c, b in pairs if b is not None)
    wanted = max(fixed, AUTO_LOOPS) if any(b is None for _, b in pairs) else fixed
    return max(1, min(wanted, total))


# The settings a task may have of its own; every other option is the worker's.
TASK_SETTINGS = ("concurrency", "batch_size", "lease")


@dataclass(frozen=True)
class TaskSettings:
    """A task's handler slots, claim size and lease, as the worker runs it.

    One precedence rule, highest first: the worker's own arguments (``pgq
    worker --concurrency/--batch-size/--lease``, or the same keywords of
    ``app.worker()``/``app.run_worker()``) > the task's ``@app.task(...)`` >
    ``App(...)`` > the default (concurrency 10, automatic batch size, the
    queue's lease). None at a level means "not set here". So ``App(concurrency=4)``
    gives every task 4 handler slots unless its decorator says otherwise, and
    ``pgq worker app:app --concurrency 2`` gives every task it runs 2: the
    operator's word is the last.
    """

    concurrency: int
    batch_size: int | None
    lease: timedelta | None

    @classmethod
    def resolve(cls, *levels: Mapping[str, Any]) -> TaskSettings:
        """The first value that is not None for each setting, going through levels (highest first)."""
        chosen: dict[str, Any] = {}
        for name in TASK_SETTINGS:
            chosen[name] = next((lv[name] for lv in levels if lv.get(name) is not None), None)
        lease = chosen["lease"]
        if isinstance(lease, (int, float)) and not isinstance(lease, bool):
            lease = timedelta(seconds=lease)
        concurrency = chosen["concurrency"]
        if concurrency is None:
            concurrency = WorkerOptions.concurrency_default()
        return cls(concurrency, chosen["batch_size"], lease)


def defaults() -> dict[str, Any]:
    """Each option's default value (the name's is computed per process)."""
    out: dict[str, Any] = {}
    for f in fields(WorkerOptions):
        factory = f.default_factory
        out[f.name] = factory() if f.default is MISSING and callable(factory) else f.default
    return out


# Arguments of a worker that are not WorkerOptions: they belong to its lane
# (per task in an App). Documented in the same table; flags of `pgq worker`.
LANE_ARGUMENTS = {
    "queues": ("one name or a list; claims go round-robin over the queues that have work", "",
               "--queue/-q"),
    "payload": ("pydantic model or callable that validates/converts each payload", "none", "--payload"),
}


def docs_table() -> str:
    """The README's table of worker arguments, from the declarations above."""
    rows = ["| argument | default | meaning |", "| --- | --- | --- |"]
    rows.append(f"| `queues` | | {LANE_ARGUMENTS['queues'][0]} |")
    for f in fields(WorkerOptions):
        meta = f.metadata
        default = meta["doc_default"] if meta["doc_default"] is not None else str(f.default)
        flag = meta["flag"] or "--" + f.name.replace("_", "-")
        cli = f" (`pgq worker {flag.split('/')[0]}`)" if meta["cli"] else ""
        rows.append(f"| `{f.name}` | {default} | {meta['help']}{cli} |")
    rows.append(f"| `payload` | none | {LANE_ARGUMENTS['payload'][0]} (`pgq worker --payload`) |")
    return "\n".join(rows) + "\n"
