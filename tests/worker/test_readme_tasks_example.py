"""The manual's App example (docs/manual/worker-and-cli.md) runs as written: tasks, enqueue, its test."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import psycopg
from pgq_client.testing import RunOutcome, run_jobs
from worker_support import ROOT


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "manual" / "worker-and-cli.md").read_text(), re.S)


def test_the_readme_app_and_its_transactional_enqueue_run_as_written(conn: psycopg.Connection[Any],
                                                                      tmp_path: Path) -> None:
    app_block = next(b for b in blocks() if b.startswith("# myapp.py"))
    enqueue_block = next(b for b in blocks() if "send_email.enqueue(conn" in b)
    myapp = types.ModuleType("myapp")
    exec(compile(app_block, "README myapp.py", "exec"), myapp.__dict__)  # noqa: S102 - the README's own code
    sys.modules["myapp"] = myapp
    try:
        conn.execute("create table users (email text primary key, mailed timestamptz)")
        exec(compile(enqueue_block, "README enqueue", "exec"),  # noqa: S102
             {**myapp.__dict__, "DATABASE_URL": conn.info.dsn})
        runs = run_jobs(conn, myapp.app)
    finally:
        del sys.modules["myapp"]
    assert [(r.queue, r.outcome) for r in runs] == [("emails", RunOutcome.COMPLETED)]
    assert conn.execute("select mailed is not null from users").fetchone()[0], "the handler's own query ran"
