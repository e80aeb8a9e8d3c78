"""The `pgq` command: migrate, run workers, enqueue, and look after queues and jobs.

Every command reads the database from ``--database-url`` or ``$DATABASE_URL``;
``pgq worker``, ``pgq stats`` and ``pgq dashboard`` take ``--database-url``
repeated, one per database (``docs/manual/several-databases.md``).
Bad arguments and database errors end with a one-line message and a non-zero
exit status (2 for usage errors, 1 for everything else), never a traceback.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from .. import migrations
from ..migrations import MigrationsNotFound
from ..records import CatchUp, Limit
from ..worker import events as ev
from ..worker._handlers import HandlerNotFound, load
from ..worker.options import LIBPQ_ENV
from ._about import version_line
from ._tables import (
    STATES,
    graph_table,
    health_table,
    job_detail,
    jobs_table,
    limits_table,
    reasons_table,
    schedules_table,
    settings_table,
    show,
    stats_table,
    throughput_table,
)
from ._worker_command import worker_options

if TYPE_CHECKING:
    import psycopg

    from .. import _client as calls
else:

    class _OnFirstUse:
        """A module imported when one of its names is first used: `pgq --help` and `pgq --version`
        never import psycopg and the client (0.2 s of a start-up that should take well under 0.3 s)."""

        def __init__(self, name: str) -> None:
            self._name = name

        def __getattr__(self, attr: str) -> Any:
            return getattr(importlib.import_module(self._name), attr)

    psycopg = _OnFirstUse("psycopg")
    calls = _OnFirstUse("pgq_client._client")

app = typer.Typer(
    name="pgq",
    help="pgq: a job queue that lives in PostgreSQL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console()
err = Console(stderr=True)


class State:
    database_url = ""  # the one database of a command that works on one
    database_urls: list[str] = []  # every --database-url given, in order (none: $DATABASE_URL)
    flag_urls: list[str] = []  # the --database-url options alone (an App's databases yield to them, not to the env)


def fail(message: str, code: int = 1) -> NoReturn:
    # Escaped: messages quote user input and pip extras ("pgq-client[metrics]"), not rich markup.
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _print_version(value: bool) -> None:
    if value:
        out.print(version_line(), highlight=False, soft_wrap=True)
        raise typer.Exit()


@app.callback()
def main_options(
    database_url: Annotated[list[str] | None, typer.Option(
        "--database-url",
        help="PostgreSQL URL or key=value string [env var: DATABASE_URL]. pgq worker, pgq stats and pgq dashboard"
             " take it repeated, one per database.",
    )] = None,
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True,
        help="Print the version and the schema revision it installs, and exit.",
    ),
) -> None:
    # Read by hand, not with typer's envvar=: for a repeatable option click splits the variable at
    # whitespace, which would cut a key=value conninfo ("host=a dbname=b") into two databases.
    State.flag_urls = [u for u in database_url or [] if u]
    State.database_urls = State.flag_urls or [u for u in [os.environ.get("DATABASE_URL", "")] if u]
    State.database_url = State.database_urls[0] if State.database_urls else ""


def _url() -> str:
    if len(State.database_urls) > 1:
        fail("this command works on one database: give --database-url once (pgq worker, pgq stats and"
             " pgq dashboard take several)", 2)
    if not State.database_url and not any(os.environ.get(v) for v in LIBPQ_ENV):
        fail("no database: set DATABASE_URL or pass --database-url", 2)
    return State.database_url


def _urls() -> list[str]:
    """The databases of a command that takes several: every --database-url, else the one of :func:`_url`."""
    return list(State.database_urls) if len(State.database_urls) > 1 else [_url()]


@contextmanager
def database(url: str | None = None) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit connection (to url, else the command's one database); database errors become a clear
    message and exit 1."""
    try:
        with psycopg.connect(_url() if url is None else url, autocommit=True, connect_timeout=10) as conn:
            yield conn
    except psycopg.errors.NoDataFound as exc:  # P0002: unknown job id or queue
        fail(exc.diag.message_primary or str(exc))
    except (psycopg.errors.UndefinedFunction, psycopg.errors.InvalidSchemaName) as exc:
        fail(f"pgq is not installed in this database ({exc.diag.message_primary}): run `pgq migrate`")
    except psycopg.errors.ObjectNotInPrerequisiteState as exc:  # 55000: e.g. a queue that still has jobs
        hint = exc.diag.message_hint
        fail((exc.diag.message_primary or str(exc)) + (f" ({hint})" if hint else ""))
    except psycopg.errors.InsufficientPrivilege as exc:
        fail(f"permission denied: {exc.diag.message_primary} (this needs the pgq_admin role, or pgq_producer"
             " for enqueue: grant it to your role)")
    except psycopg.Error as exc:
        from ..worker._transient import fatal_reason

        reason = fatal_reason(exc)
        if reason is not None:
            fail(reason)
        diag = getattr(exc, "diag", None)
        message = (diag.message_primary if diag is not None else None) or str(exc).strip()
        fail(f"database error: {message}")


# -- migrate ---------------------------------------------------------------------------------


@app.command()
def migrate(
    revision: Annotated[str, typer.Option(help="Alembic revision to upgrade to.")] = "head",
    alembic_ini: str = typer.Option(
        None, "--alembic-ini", envvar="PGQ_ALEMBIC_INI",
        help="Another alembic.ini of pgq's (default: the migrations this package carries).",
    ),
) -> None:
    """Install or upgrade pgq in the database (alembic upgrade head, with the migrations this package carries)."""
    url = _url()
    try:
        at = migrations.upgrade(url, revision, alembic_ini_path=alembic_ini)
        ini = migrations.alembic_ini(alembic_ini)
    except MigrationsNotFound as exc:
        fail(str(exc), 2)
    except psycopg.Error as exc:
        fail(f"database error: {str(exc).strip()}")
    except Exception as exc:  # noqa: BLE001 - alembic raises plain exceptions (CommandError, SQLAlchemy errors)
        fail(f"migration failed: {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc) else ''}")
    out.print(f"pgq is at revision {at} ({ini.parent / 'alembic'})", highlight=False, soft_wrap=True)


# -- worker -------------------------------------------------------------------------------------


def worker(
    target: Annotated[
        str, typer.Argument(help="The handler as module:function, or an App as module:app"
                                 " (the current directory is importable).")
    ],
    queue: Annotated[
        list[str] | None,
        typer.Option("--queue", "-q", help="Queue to work on; repeat for several (an App: only these tasks)."),
    ] = None,
    payload: Annotated[
        str | None, typer.Option(help="module:Model (pydantic) or module:function to validate payloads.")
    ] = None,
    log_level: Annotated[
        str, typer.Option(help="debug shows every job; info the worker's life; warning failures.")
    ] = "info",
    log_json: Annotated[bool, typer.Option("--log-json", help="Log one JSON object per line (every logger).")] = False,
    **options: Any,
) -> None:
    """Run a worker until SIGTERM/SIGINT (a second signal exits at once, giving unfinished jobs back).

    For an App, a flag given here wins over the tasks' and the App's own settings; a flag not given
    leaves them (the same effective settings as app.run_worker()). --database-url repeated serves the
    queues in every database given (one worker per database, in this process); without the flag an
    App's own databases= setting wins over $DATABASE_URL.
    """
    import asyncio

    from ..app import App
    from ..worker import StartupError

    level = logging.getLevelName(log_level.upper())
    if not isinstance(level, int):
        fail(f"unknown log level {log_level!r} (debug, info, warning, error)", 2)
    try:
        found = load(target, accept=App)
        hook = load(payload) if payload else None
    except HandlerNotFound as exc:  # first: no --queue can help a module that does not import
        fail(str(exc), 2)
    if not isinstance(found, App) and not queue:
        fail("Missing option '--queue' / '-q': the queue(s) this handler works on", 2)
    if isinstance(found, App) and hook is not None:
        fail("--payload is for a plain handler; an App's tasks declare their payload models", 2)
    ev.configure(level, json_lines=log_json)
    several = State.flag_urls if len(State.flag_urls) > 1 else None
    if several is None and not (isinstance(found, App) and found.databases is not None and not State.flag_urls):
        options["database_url"] = _url()
    try:
        if isinstance(found, App):
            made: Any = found.worker(queues=queue, databases=several, **options)
        else:
            from ..worker import AsyncWorker, AsyncWorkerGroup, Worker, WorkerGroup
            from ..worker._databases import plan
            from ..worker._handlers import is_async

            cls: Any = AsyncWorker if is_async(found) else Worker
            if several is None:
                made = cls(found, queue or [], payload=hook, **options)
            else:  # one worker per database, run as one (what App.worker does with databases=)
                name = options.pop("name", None) or f"{socket.gethostname()}:{os.getpid()}"
                made = (AsyncWorkerGroup if cls is AsyncWorker else WorkerGroup)(
                    {db.label: cls(found, queue or [], payload=hook, database_url=db.url, name=f"{name}/{db.label}",
                                   **options) for db in plan(several, queue or [])})
    except (ValueError, TypeError) as exc:
        fail(str(exc), 2)
    try:
        if asyncio.iscoroutinefunction(made.run):
            asyncio.run(made.run())
        else:
            made.run()
    except StartupError as exc:
        fail(str(exc))


worker = app.command()(worker_options(worker))


# -- enqueue ------------------------------------------------------------------------------------

_RELATIVE = re.compile(r"^\+?(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}


def parse_run_at(text: str) -> datetime:
    """An ISO 8601 time (naive = UTC), or a delay from now such as +30s, +5m, +2h."""
    relative = _RELATIVE.match(text.strip())
    if relative and text.strip().startswith("+"):
        seconds = float(relative.group(1)) * _UNITS[relative.group(2)]
        return datetime.now(timezone.utc) + timedelta(seconds=seconds)
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise typer.BadParameter(f"{text!r} is neither an ISO 8601 time nor a delay like +30s") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


@app.command()
def enqueue(
    queue: Annotated[str, typer.Argument(help="Queue name.")],
    payload: Annotated[str, typer.Argument(help='The job\'s payload as JSON, e.g. \'{"to": "ada@example.com"}\'.')],
    run_at: Annotated[
        str | None, typer.Option("--run-at", help="When to run: ISO 8601 time or a delay like +30s, +5m.")
    ] = None,
    priority: Annotated[int, typer.Option(help="Higher runs first (-32768..32767).")] = 0,
    dedup_key: Annotated[
        str | None, typer.Option("--dedup-key", help="At most one waiting/running job per queue and key.")
    ] = None,
    max_attempts: Annotated[
        int | None, typer.Option("--max-attempts", min=1, help="Failed attempts before dead.")
    ] = None,
) -> None:
    """Add a job; prints its id."""
    try:
        data = json.loads(payload)
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"payload is not valid JSON: {exc}", param_hint="PAYLOAD") from None
    when = parse_run_at(run_at) if run_at else None
    with database() as conn:
        job_id = calls.enqueue(
            conn, queue, data, run_at=when, priority=priority, max_attempts=max_attempts, dedup_key=dedup_key
        )
    out.print(job_id)


# -- stats, jobs ----------------------------------------------------------------------------------


@app.command()
def stats(
    once: Annotated[bool, typer.Option("--once", help="Print the table once and exit.")] = False,
    interval: Annotated[float, typer.Option(min=0.1, help="Seconds between refreshes.")] = 1.0,
) -> None:
    """Queues with their waiting, scheduled, running and dead counts (refreshing until Ctrl-C).

    With --database-url repeated: one table per database, each titled with the database's label."""
    if len(State.database_urls) > 1:
        _stats_of_several(once, interval)
        return
    with database() as conn:
        if once:
            show(out, stats_table(calls.stats(conn)))
            return
        from rich.live import Live

        try:
            with Live(stats_table(calls.stats(conn)), console=out, refresh_per_second=4) as live:
                while True:
                    time.sleep(interval)
                    stamp = datetime.now().strftime("%H:%M:%S")
                    live.update(stats_table(calls.stats(conn), title=f"pgq queues at {stamp} (Ctrl-C to stop)"))
        except KeyboardInterrupt:
            pass


def _stats_of_several(once: bool, interval: float) -> None:
    """``pgq stats`` over several databases: a table each. A database that does not answer says so in its
    title and the others are shown (with --once the exit status is then 1)."""
    from rich.console import Group

    from ..worker._databases import labels

    urls = State.database_urls
    names = labels(urls)
    conns: dict[str, psycopg.Connection[Any] | None] = dict.fromkeys(names)

    def tables(stamp: str = "") -> tuple[Group, bool]:
        shown, all_up = [], True
        for name, url in zip(names, urls, strict=True):
            title = f"pgq queues in {name}" + (f" at {stamp} (Ctrl-C to stop)" if stamp else "")
            try:
                conn = conns[name]
                if conn is None or conn.closed:
                    conn = conns[name] = psycopg.connect(url, autocommit=True, connect_timeout=5)
                shown.append(stats_table(calls.stats(conn), title=title))
            except psycopg.Error as exc:
                all_up = False
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                if isinstance(exc, (psycopg.errors.UndefinedFunction, psycopg.errors.InvalidSchemaName)):
                    why = f"pgq is not installed in this database ({first}): run `pgq migrate`"
                elif isinstance(exc, psycopg.OperationalError):
                    why, conns[name] = f"not reachable: {first}", None
                else:
                    why = f"database error: {first}"
                table = stats_table([], title=title)
                table.caption = why
                shown.append(table)
        return Group(*shown), all_up

    try:
        if once:
            group, all_up = tables()
            show(out, group)
            if not all_up:
                raise typer.Exit(1)
            return
        from rich.live import Live

        with Live(tables()[0], console=out, refresh_per_second=4) as live:
            while True:
                time.sleep(interval)
                live.update(tables(datetime.now().strftime("%H:%M:%S"))[0])
    except KeyboardInterrupt:
        pass
    finally:
        for conn in conns.values():
            if conn is not None:
                conn.close()


@app.command()
def jobs(
    job_id: Annotated[int | None, typer.Argument(help="Show one job in full (payload, every error).")] = None,
    state: Annotated[str | None, typer.Option("--state", "-s", help=f"One of: {', '.join(STATES)}.")] = None,
    queue: Annotated[str | None, typer.Option("--queue", "-q", help="Only this queue.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10000, help="Most rows to list.")] = 50,
) -> None:
    """List jobs (newest first), or inspect one by id."""
    if state is not None and state not in STATES:
        raise typer.BadParameter(f"{state!r} is not one of {', '.join(STATES)}", param_hint="--state")
    with database() as conn:
        if job_id is not None:
            found = calls.jobs(conn, job_id=job_id, limit=1)
            if not found:
                fail(f"job {job_id} does not exist (or its history was purged)")
            show(out, job_detail(found[0]))
            return
        show(out, jobs_table(calls.jobs(conn, queue=queue, state=state, limit=limit)))


@app.command()
def explain(job_id: int = typer.Argument(..., help="Any job id.")) -> None:
    """Why a job is not running now: one line per reason (q.explain)."""
    with database() as conn:
        rows = calls.explain(conn, job_id)
    show(out, reasons_table(job_id, rows))


@app.command()
def result(
    job_id: int = typer.Argument(..., help="Any job id."),
    wait: Annotated[float, typer.Option("--wait", min=0, help="Wait up to this many seconds to finish.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the row as one JSON object.")] = False,
) -> None:
    """What became of a job: state, result, last error, attempts, finish time, progress (q.result).

    With --wait, blocks until the job finishes (woken by NOTIFY, q.await_results) or the time is up;
    exit status 1 when it is still unfinished then.
    """
    with database() as conn:
        row = calls.wait_results(conn, [job_id], wait)[0] if wait > 0 else calls.result(conn, job_id)
    fields = {
        "id": row.id, "queue": row.queue, "state": row.state, "result": row.result, "last_error": row.last_error,
        "attempts": row.attempts, "finished_at": row.finished_at.isoformat() if row.finished_at else None,
        "progress": row.progress,
    }
    if as_json:
        out.print_json(json.dumps(fields))
    else:
        for name, value in fields.items():
            if value is None or name == "id":
                continue
            text = json.dumps(value) if name in ("result", "progress") else str(value)
            out.print(f"{name + ':':<12} {escape(text)}")
    if wait > 0 and not row.finished:
        raise typer.Exit(1)


@app.command()
def flow(
    job_id: int = typer.Argument(..., help="Any job id."),
    limit: Annotated[int, typer.Option(help="At most this many parents and this many children.")] = 100,
) -> None:
    """A job's parents and children with their states and how each edge ended (q.job_graph)."""
    with database() as conn:
        rows = calls.job_graph(conn, job_id, max_rows=limit)
    show(out, graph_table(job_id, rows))


@app.command()
def health(
    show_all: Annotated[bool, typer.Option("--all", help="Show the checks that are ok too.")] = False,
) -> None:
    """Vacuum, settings, bloat and sessions holding back vacuum (q.health); exit 1 on a critical finding."""
    with database() as conn:
        rows = calls.health(conn)
    if show_all or any(r.severity != "ok" for r in rows):
        show(out, health_table(rows, show_ok=show_all))
    else:
        out.print(f"pgq health: all {len(rows)} checks ok")
    if any(r.severity == "critical" for r in rows):
        raise typer.Exit(1)


# -- admin actions ----------------------------------------------------------------------------------


@app.command()
def retry(job_id: int = typer.Argument(..., help="A dead or cancelled job.")) -> None:
    """Put a dead or cancelled job back in its queue."""
    with database() as conn:
        calls.retry(conn, job_id)
    out.print(f"job {job_id} is waiting again")


@app.command()
def cancel(job_id: int = typer.Argument(..., help="A waiting, scheduled or running job.")) -> None:
    """Cancel a job (a running one learns at its next heartbeat)."""
    with database() as conn:
        done = calls.cancel(conn, job_id)
    if not done:
        fail(f"job {job_id} had already finished")
    out.print(f"job {job_id} cancelled")


@app.command()
def reap() -> None:
    """Return lost claims to their queues now (workers do this about once a second)."""
    with database() as conn:
        count = calls.reap(conn)
    out.print(f"recovered {count} lost claim(s)")


@app.command()
def pause(queue: str = typer.Argument(...)) -> None:
    """Stop claims from a queue."""
    with database() as conn:
        calls.pause(conn, queue)
    out.print(f"queue {queue} paused")


@app.command()
def resume(queue: str = typer.Argument(...)) -> None:
    """Let claims from a paused queue go on."""
    with database() as conn:
        calls.resume(conn, queue)
    out.print(f"queue {queue} resumed")


# -- queue settings and flow-control limits -----------------------------------------------------------

LIMITS = tuple(limit.value for limit in Limit)


@app.command()
def configure(
    queue: Annotated[str, typer.Argument(help="The queue (made with the defaults if it does not exist).")],
    lease: Annotated[str | None, typer.Option(help="Lease of a claim: 30s, 5m, 2h.")] = None,
    max_lease: Annotated[
        str | None, typer.Option("--max-lease", help="Longest lease a claim or heartbeat may ask for: 1h, 1d"
                                 " (revision 0008).")] = None,
    max_attempts: Annotated[int | None, typer.Option("--max-attempts", help="Failed attempts before dead.")] = None,
    max_crashes: Annotated[int | None, typer.Option("--max-crashes", help="Lost claims before dead.")] = None,
    backoff_base: Annotated[
        str | None, typer.Option("--backoff-base", help="First retry's delay, doubling per attempt: 0s, 1s, 30s.")
    ] = None,
    backoff_max: Annotated[str | None, typer.Option("--backoff-max", help="Longest retry delay: 5m, 1h.")] = None,
    keep_completed: Annotated[
        bool | None, typer.Option("--keep-completed/--drop-completed",
                                  help="Keep completed jobs in the history (for retention) or delete them at once.")
    ] = None,
    retention: Annotated[
        str | None, typer.Option(help="How long finished jobs stay in the history: 3d, 12h.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="At most N jobs of the queue run at once.")] = None,
    key_concurrency: Annotated[
        int | None, typer.Option("--key-concurrency", help="At most K jobs per concurrency key.")] = None,
    ordered: Annotated[
        bool | None, typer.Option("--ordered/--unordered", help="A key's jobs one after another, in order.")] = None,
    rate: Annotated[int | None, typer.Option(help="At most R starts per --per window.")] = None,
    per: Annotated[str | None, typer.Option(help="The rate window: 1s (default with --rate), 1m, 1h.")] = None,
    key_rate: Annotated[
        int | None, typer.Option("--key-rate", help="At most R starts per concurrency key per --key-per window"
                                 " (needs --key-concurrency; revision 0007).")] = None,
    key_per: Annotated[
        str | None, typer.Option("--key-per", help="The per-key rate window: 1s (default with --key-rate), 1m.")
    ] = None,
    unlimit: Annotated[
        list[str] | None, typer.Option(help=f"Remove a limit: {', '.join(LIMITS)} (repeatable).")] = None,
    keep_results: Annotated[
        str | None, typer.Option("--keep-results", help="How long a completed job's result stays readable: 1d, 7d"
                                 " (revision 0009).")] = None,
    max_result_size: Annotated[
        int | None, typer.Option("--max-result-size", help="Largest result in bytes (revision 0009).")] = None,
) -> None:
    """Change a queue's settings and flow-control limits (pgq_admin); prints them all."""
    for name in unlimit or []:
        if name not in LIMITS:
            raise typer.BadParameter(f"{name!r} is not one of {', '.join(LIMITS)}", param_hint="--unlimit")
    window, key_window = _rate_window(per, "--per", rate), _rate_window(key_per, "--key-per", key_rate)
    intervals = {"lease": _interval(lease, "--lease"), "max_lease": _interval(max_lease, "--max-lease"),
                 "backoff_base": _interval(backoff_base, "--backoff-base"),
                 "backoff_max": _interval(backoff_max, "--backoff-max"),
                 "retention": _interval(retention, "--retention"),
                 "keep_results": _interval(keep_results, "--keep-results")}
    with database() as conn:
        row = calls.configure(conn, queue, max_attempts=max_attempts, max_crashes=max_crashes,
                              keep_completed=keep_completed, concurrency=concurrency,
                              key_concurrency=key_concurrency, ordered=ordered, rate=rate, per=window,
                              unlimit=unlimit, key_rate=key_rate, key_per=key_window,
                              max_result_size=max_result_size, **intervals)
    show(out, settings_table(row))


def _interval(text: str | None, flag: str) -> timedelta | None:
    return parse_every(text, flag) if text is not None else None


def _rate_window(per: str | None, flag: str, rate: int | None) -> timedelta | None:
    """The window a rate option names; 1 s when only the rate is given (so it resets a longer one)."""
    if per is not None:
        return parse_every(per, flag)
    return timedelta(seconds=1) if rate is not None else None


@app.command()
def limits(queue: Annotated[str | None, typer.Argument(help="Only this queue.")] = None) -> None:
    """Every limited queue's limits and how full they are now: running, busy keys, held jobs, rate window, key rate."""
    with database() as conn:
        show(out, limits_table(calls.limits(conn, queue)))


# -- schedules ------------------------------------------------------------------------------------

schedule_app = typer.Typer(help="Cron and interval schedules: add, list, remove, pause, resume (pgq_admin).",
                           no_args_is_help=True)
app.add_typer(schedule_app, name="schedule")
_EVERY = re.compile(r"^(\d+)\s*(s|m|h|d)?$")
CATCH_UPS = tuple(c.value for c in CatchUp)


def parse_every(text: str, option: str = "--every") -> timedelta:
    """An interval such as 30s, 5m, 2h, 1d (a bare number is seconds)."""
    match = _EVERY.match(text.strip())
    if not match:
        raise typer.BadParameter(f"{text!r} is not an interval like 30s, 5m, 2h or 1d", param_hint=option)
    return timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])


@schedule_app.command("add")
def schedule_add(
    name: Annotated[str, typer.Argument(help="The schedule's name (adding an existing name replaces it).")],
    queue: Annotated[str, typer.Option("--queue", "-q", help="Queue the jobs go to.")],
    cron: Annotated[str | None, typer.Option(help="5-field cron expression or @hourly/@daily/... macro.")] = None,
    every: Annotated[str | None, typer.Option(help="Interval instead of cron: 30s, 5m, 2h, 1d.")] = None,
    payload: Annotated[str, typer.Option(help="Payload JSON object each job gets (plus schedule and slot).")] = "{}",
    tz: Annotated[str, typer.Option("--timezone", "--tz", help="IANA time zone of the cron expression.")] = "UTC",
    priority: Annotated[int, typer.Option(help="Priority of the jobs.")] = 0,
    max_attempts: Annotated[
        int | None, typer.Option("--max-attempts", min=1, help="Failed attempts before dead.")
    ] = None,
    catch_up: Annotated[
        str, typer.Option("--catch-up", help="Slots missed by downtime: latest, all or none.")
    ] = "latest",
) -> None:
    """Create or replace a schedule; prints its next fire time."""
    if (cron is None) == (every is None):
        raise typer.BadParameter("give exactly one of --cron and --every")
    if catch_up not in CATCH_UPS:
        raise typer.BadParameter(f"{catch_up!r} is not one of {', '.join(CATCH_UPS)}", param_hint="--catch-up")
    try:
        data = json.loads(payload)
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"payload is not valid JSON: {exc}", param_hint="--payload") from None
    interval = parse_every(every) if every is not None else None
    with database() as conn:
        row = calls.schedule(conn, name, queue=queue, cron=cron, every=interval, payload=data, timezone=tz,
                             priority=priority, max_attempts=max_attempts, catch_up=catch_up)
    show(out, schedules_table([row]))


@schedule_app.command("list")
def schedule_list() -> None:
    """Every schedule with its next fire time (in its time zone), last slot and last job."""
    with database() as conn:
        show(out, schedules_table(calls.schedules(conn)))


@schedule_app.command("remove")
def schedule_remove(name: str = typer.Argument(...)) -> None:
    """Delete a schedule (jobs it already enqueued stay)."""
    with database() as conn:
        if not calls.unschedule(conn, name):
            fail(f"no schedule named {name!r}")
    out.print(f"schedule {name} removed")


@schedule_app.command("pause")
def schedule_pause(name: str = typer.Argument(...)) -> None:
    """Stop a schedule firing (slots passing meanwhile are skipped)."""
    with database() as conn:
        if not calls.pause_schedule(conn, name):
            fail(f"no schedule named {name!r}")
    out.print(f"schedule {name} paused")


@schedule_app.command("resume")
def schedule_resume(name: str = typer.Argument(...)) -> None:
    """Let a paused schedule fire again from its next slot."""
    with database() as conn:
        if not calls.resume_schedule(conn, name):
            fail(f"no schedule named {name!r}")
        rows = calls.schedules(conn, name)
    next_fire = rows[0].next_fire_at if rows else None
    out.print(f"schedule {name} resumed; next fire {next_fire.isoformat() if next_fire else '-'}")


@app.command()
def throughput(
    minutes: Annotated[int, typer.Option("--minutes", "-m", min=1, max=1440, help="How far back.")] = 15,
) -> None:
    """Completed, failed and dead jobs per queue over the last minutes (q.throughput)."""
    with database() as conn:
        rows = calls.throughput(conn, since=timedelta(minutes=minutes))
    show(out, throughput_table(rows, minutes))


# -- bulk admin (each SQL call is bounded by --max-rows; --all repeats it until nothing matches) -----


def _repeat(step: Any, every: bool) -> tuple[int, int, bool]:
    done = skipped = 0
    while True:
        result = step()
        done, skipped = done + result.count, skipped + result.skipped
        if not (every and result.more and result.count > 0):
            return done, skipped, result.more


def _more(more: bool) -> str:
    return "; more match: run it again (or pass --all)" if more else ""


@app.command("retry-dead")
def retry_dead(
    queue: str = typer.Argument(..., help="The queue whose dead jobs go back."),
    error: Annotated[str | None, typer.Option("--error", help="Only jobs whose last error contains this text.")] = None,
    max_rows: Annotated[int, typer.Option("--max-rows", min=1, max=100000, help="Most jobs per call.")] = 1000,
    every: Annotated[bool, typer.Option("--all", help="Repeat until no matching dead job is left.")] = False,
) -> None:
    """Put the dead jobs of a queue back as waiting (oldest first), like `pgq retry` for many."""
    with database() as conn:
        done, skipped, more = _repeat(
            lambda: calls.retry_dead(conn, queue, error_contains=error, max_rows=max_rows), every)
    note = f", {skipped} left dead (a live job holds their dedup key)" if skipped else ""
    out.print(f"retried {done} dead job(s) of {queue}{note}{_more(more)}", highlight=False)


@app.command("cancel-jobs")
def cancel_jobs(
    queue: str = typer.Argument(..., help="The queue whose jobs to cancel."),
    state: Annotated[
        str | None, typer.Option("--state", "-s", help="waiting, scheduled or running (default: all three).")
    ] = None,
    payload: Annotated[
        str | None, typer.Option("--payload", help='Only payloads containing this JSON, e.g. \'{"tenant": 7}\'.')
    ] = None,
    max_rows: Annotated[int, typer.Option("--max-rows", min=1, max=100000, help="Most jobs per call.")] = 1000,
    every: Annotated[bool, typer.Option("--all", help="Repeat until no matching job is left.")] = False,
) -> None:
    """Cancel the live jobs of a queue matching a filter (running ones stop at their next heartbeat)."""
    if state is not None and state not in ("waiting", "scheduled", "running"):
        raise typer.BadParameter(f"{state!r} is not one of waiting, scheduled, running", param_hint="--state")
    try:
        contains = json.loads(payload) if payload is not None else None
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"not valid JSON: {exc}", param_hint="--payload") from None
    with database() as conn:
        done, _, more = _repeat(
            lambda: calls.cancel_jobs(conn, queue, state=state, payload_contains=contains, max_rows=max_rows), every)
    out.print(f"cancelled {done} job(s) of {queue}{_more(more)}", highlight=False)


@app.command()
def purge(
    queue: str = typer.Argument(..., help="The queue to empty."),
    yes: Annotated[bool, typer.Option("--yes", help="Really delete (no history is kept).")] = False,
    max_rows: Annotated[int, typer.Option("--max-rows", min=1, max=1000000, help="Most jobs per call.")] = 10000,
    every: Annotated[
        bool, typer.Option("--all", help="Repeat until the queue has no waiting or scheduled job.")
    ] = False,
) -> None:
    """Delete the waiting and scheduled jobs of a queue, keeping no history (running jobs go on)."""
    if not yes:
        fail(f"this deletes the waiting and scheduled jobs of {queue} for good: pass --yes", 2)
    with database() as conn:
        done, _, more = _repeat(lambda: calls.purge(conn, queue, max_rows=max_rows), every)
    out.print(f"purged {done} job(s) of {queue}{_more(more)}", highlight=False)


@app.command("delete-queue")
def delete_queue(
    queue: str = typer.Argument(..., help="A queue with no waiting, scheduled or running job."),
    yes: Annotated[bool, typer.Option("--yes", help="Really delete it, with its history.")] = False,
) -> None:
    """Delete a queue that has no live job (a typo, say), with its history and throughput figures."""
    if not yes:
        fail(f"this deletes queue {queue} and its history: pass --yes", 2)
    with database() as conn:
        gone = calls.delete_queue(conn, queue)
    out.print(f"queue {queue} deleted ({gone} history row(s) with it)", highlight=False)


# -- monitoring: the metrics exporter ---------------------------------------------------------------


def need_extra(extra: str, *modules: str) -> None:
    """Stop with the pip command that installs ``extra`` when one of its modules is missing (no traceback)."""
    import importlib

    missing = []
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    if missing:
        fail(f"this needs the {extra} extra ({', '.join(missing)} missing): pip install 'pgq-client[{extra}]'")


def wait_for_signal() -> None:
    """Block until SIGTERM or SIGINT."""
    import signal
    import threading

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not stop.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@app.command()
def metrics(
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on (0: a free one).")] = 9632,
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: every interface).")] = "127.0.0.1",
    min_interval: Annotated[
        float, typer.Option("--min-interval", min=0, help="Seconds a database read is reused for (scrape storms).")
    ] = 1.0,
    query_timeout: Annotated[
        float, typer.Option("--query-timeout", min=0.1, help="statement_timeout of each read, in seconds.")
    ] = 5.0,
    max_queue_labels: Annotated[
        int, typer.Option("--max-queue-labels", min=1, max=1000,
                          help="Queues with their own label (largest backlog first); the rest sum into _other.")
    ] = 100,
    read_url: Annotated[
        str | None, typer.Option("--read-url", envvar="PGQ_READ_URL",
                                 help="Read from this database instead of --database-url (a streaming standby:"
                                      " pgq_exporter_standby_replay_age_seconds says how stale).")
    ] = None,
) -> None:
    """Serve Prometheus metrics of the active queues (depths, oldest waiting, running, dead, throughput) until Ctrl-C.

    Needs pgq_monitor (or pgq_viewer); labels at most --max-queue-labels queues. It only reads,
    so it can read a standby (--read-url)."""
    need_extra("metrics", "prometheus_client")
    from ..exporter import Exporter

    url = read_url or _url()
    ev.configure(logging.INFO)
    exporter = Exporter(url, host=host, port=port, min_interval=min_interval, query_timeout=query_timeout,
                        max_queue_labels=max_queue_labels)
    try:
        bound_host, bound_port = exporter.start()
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    out.print(f"serving pgq metrics at http://{bound_host}:{bound_port}/metrics", highlight=False)
    sys.stdout.flush()
    try:
        wait_for_signal()
    finally:
        exporter.stop()


@app.command()
def dashboard(
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8080,
    host: Annotated[
        str, typer.Option(help="Address to listen on. The dashboard has no login: keep it local or behind a proxy.")
    ] = "127.0.0.1",
    read_only: Annotated[bool, typer.Option("--read-only", help="Show no actions, whatever the role may do.")] = False,
    root_path: Annotated[
        str, typer.Option("--root-path", help="URL prefix when served under a path of a proxy, e.g. /pgq.")
    ] = "",
    allowed_host: Annotated[
        list[str] | None, typer.Option(
            "--allowed-host", help="A Host name to answer to besides localhost, 127.0.0.1, [::1] and --host"
            " (repeatable; the name people browse to, or that a proxy sends; '*' for any).")
    ] = None,
    token_lifetime: Annotated[
        int, typer.Option("--token-lifetime", min=1, envvar="PGQ_DASHBOARD_TOKEN_LIFETIME",
                          help="Seconds a page's actions (its CSRF token) stay valid.")
    ] = 3600,
    max_searches: Annotated[
        int, typer.Option("--max-searches", min=1, help="Text searches run at once; more are refused (429).")
    ] = 2,
    read_url: Annotated[
        str | None, typer.Option("--read-url", envvar="PGQ_READ_URL",
                                 help="Read the pages from this database (a streaming standby of --database-url;"
                                      " the header says how stale); actions still go to --database-url.")
    ] = None,
) -> None:
    """Serve the web dashboard (queues, jobs, dead jobs, health) until Ctrl-C.

    With --database-url repeated: an index of the databases at / and each one's dashboard at /db/<name>/."""
    need_extra("dashboard", "starlette", "jinja2", "uvicorn", "multipart", "psycopg_pool")
    from ..dashboard import serve

    urls = _urls()
    if read_url is not None and len(urls) != 1:
        fail("--read-url goes with one --database-url, not several")
    for one in [*urls, *([read_url] if read_url else [])]:  # fail fast, with the usual one-line messages
        with database(one) as conn:
            conn.execute("select 1")
    url: str | list[str] = urls[0] if len(urls) == 1 else urls
    mode = "read-only" if read_only else "actions as the database role allows"
    out.print(f"serving the pgq dashboard at http://{host}:{port}{root_path}/ ({mode})", highlight=False)
    if host in ("0.0.0.0", "::", "") and not allowed_host:
        out.print(f"it answers only to Host localhost, 127.0.0.1 and [::1]: add the name people use with"
                  f" --allowed-host (listening on {host or 'every address'})", highlight=False)
    sys.stdout.flush()
    serve(url, host=host, port=port, read_only=read_only, root_path=root_path, allowed_hosts=allowed_host or (),
          token_lifetime=token_lifetime, max_searches=max_searches, read_url=read_url)


def hoist_database_url(argv: list[str]) -> list[str]:
    """``--database-url`` belongs to ``pgq`` itself; accept it after the command's name too.

    ``pgq worker tasks:f -q emails --database-url URL`` reads as ``pgq --database-url URL worker ...``
    (typer would otherwise answer "No such option"). Only the option's own spellings move
    (``--database-url URL``, ``--database-url=URL``); everything else keeps its place.
    """
    moved: list[str] = []
    kept: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--database-url" and i + 1 < len(argv):
            moved += argv[i:i + 2]
            i += 2
            continue
        if arg.startswith("--database-url="):
            moved.append(arg)
        else:
            kept.append(arg)
        i += 1
    return moved + kept


def main() -> None:
    """Console-script entry point."""
    try:
        app(args=hoist_database_url(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
