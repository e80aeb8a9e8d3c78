"""The layers stay honest: generated sync code is current, options are declared once, docs match."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pgq_client import App, AsyncWorker, Worker
from pgq_client.worker.options import WorkerOptions, docs_table

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_sync_code_is_what_the_async_source_gives() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "async_to_sync.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_manual_table_of_worker_arguments_is_the_declared_one() -> None:
    readme = (ROOT / "docs" / "manual" / "worker-and-cli.md").read_text()
    begin, end = "<!-- worker-options:begin (generated from WorkerOptions) -->\n", "<!-- worker-options:end -->"
    assert begin in readme and end in readme
    table = readme.split(begin, 1)[1].split(end, 1)[0]
    assert table == docs_table(), "paste pgq_client.worker.options.docs_table() into docs/manual/worker-and-cli.md"


def test_every_option_reaches_both_workers_the_app_and_the_command() -> None:
    import inspect

    from pgq_client.cli._commands import worker as command

    given = {"concurrency": 3, "batch_size": 7, "claim_loops": 2, "lease": 5.0, "poll_interval": 0.5,
             "listen": False, "pgbouncer": True, "grace_period": 1.0, "reap_interval": 2.0, "name": "n",
             "database_url": "dbname=x", "connect_kwargs": {"connect_timeout": 3}, "metrics_port": 9100,
             "metrics_host": "0.0.0.0"}
    assert set(given) == {f for f in WorkerOptions.__dataclass_fields__}, "a new option: add it here"
    for cls in (Worker, AsyncWorker):
        opts = cls(print, "q", **given).options
        assert (opts.concurrency, opts.batch_size, opts.lease.total_seconds()) == (3, 7, 5.0)  # type: ignore[union-attr]
        assert (opts.metrics_port, opts.metrics_host) == (9100, "0.0.0.0")
    app = App(**given)
    app.task(queue="q")(print)
    assert app.worker().options.claim_loops == 2
    cli = set(inspect.signature(command).parameters)
    declared = {name for name, f in WorkerOptions.__dataclass_fields__.items() if f.metadata["cli"]}
    assert declared <= cli and {"database_url", "connect_kwargs"}.isdisjoint(cli)


def test_the_generator_drops_async_keeps_comments_and_honours_the_markers() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import async_to_sync

    source = (
        '"""Talks to an AsyncConnection."""\n'
        "from ._acompat import AEvent\n\n\n"
        "async def f(conn: AsyncConnection) -> None:\n"
        "    # why: one round trip\n"
        "    async with conn.cursor() as cur:\n"
        "        await cur.execute('select 1')\n"
        "    await asyncio.sleep(0)  # async-only\n"
        "    x = 1  # sync: x = 2\n"
        "    AEvent().set()\n"
    )
    out = async_to_sync.translate(source, "x.py")
    assert "async" not in out.split("\n", 2)[2] and "await" not in out
    assert '"""Talks to an Connection."""' in out and "# why: one round trip" in out
    assert "asyncio.sleep" not in out and "    x = 2\n" in out
    assert "from ._compat import Event" in out and "Event().set()" in out


def test_pgq_help_and_version_import_neither_psycopg_nor_alembic() -> None:
    """`pgq --help`/`--version` start in well under 0.3 s: the heavy modules load when a command needs them."""
    script = (
        "import sys\n"
        "from pgq_client.cli import main\n"
        "sys.argv = ['pgq', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'psycopg', 'psycopg_pool', 'alembic', 'sqlalchemy',"
        " 'pydantic', 'asyncio'})\n"
        "print('heavy:', ','.join(heavy))\n"
    )
    for flag in ("--help", "--version"):
        done = subprocess.run([sys.executable, "-c", script, flag], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("heavy:"), (flag, done.stdout[-300:])
    version = subprocess.run([sys.executable, "-m", "pgq_client", "--version"], capture_output=True, text=True)
    from alembic.script import ScriptDirectory
    from pgq_client import migrations

    heads = ScriptDirectory.from_config(migrations.config()).get_heads()
    assert version.stdout.strip().endswith(f"schema revision {heads[0]})"), version.stdout
