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


def test_the_readme_table_of_worker_arguments_is_the_declared_one() -> None:
    readme = (ROOT / "README.md").read_text()
    begin, end = "<!-- worker-options:begin (generated from WorkerOptions) -->\n", "<!-- worker-options:end -->"
    assert begin in readme and end in readme
    table = readme.split(begin, 1)[1].split(end, 1)[0]
    assert table == docs_table(), "run: python -c 'from pgq_client.worker.options import docs_table; print(docs_table())'"


def test_every_option_reaches_both_workers_the_app_and_the_command() -> None:
    from pgq_client.cli._commands import worker as command
    import inspect

    given = {"concurrency": 3, "batch_size": 7, "claim_loops": 2, "lease": 5.0, "poll_interval": 0.5,
             "listen": False, "pgbouncer": True, "grace_period": 1.0, "reap_interval": 2.0, "name": "n",
             "database_url": "dbname=x", "connect_kwargs": {"connect_timeout": 3}}
    assert set(given) == {f for f in WorkerOptions.__dataclass_fields__}, "a new option: add it here"
    for cls in (Worker, AsyncWorker):
        opts = cls(print, "q", **given).options
        assert (opts.concurrency, opts.batch_size, opts.lease.total_seconds()) == (3, 7, 5.0)  # type: ignore[union-attr]
    app = App(**given)
    app.task(queue="q")(print)
    assert app.worker().options.claim_loops == 2
    cli = set(inspect.signature(command).parameters)
    declared = {name for name, f in WorkerOptions.__dataclass_fields__.items() if f.metadata["cli"]}
    assert declared <= cli and {"database_url", "connect_kwargs"}.isdisjoint(cli)
