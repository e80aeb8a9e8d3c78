"""The ``pgq`` command (typer + rich): migrate, run workers, enqueue, and look after queues and jobs.

``python -m pgq_client`` runs it too. The worker's options are generated from
:class:`pgq_client.worker.WorkerOptions` (``_worker_command.py``), so the
command, the Python API and the README table say the same thing.

The command needs the ``cli`` extra (``pip install 'pgq-client[cli]'``).
:func:`main` imports the command lazily, so that an installation without the
extra says which one to install instead of ending in a traceback.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec
from typing import Any

__all__ = ["app", "main"]

# Which extra brings a module the command imports (the top-level name of the missing module).
EXTRA_OF = {
    "typer": "cli",
    "rich": "cli",
    "click": "cli",
    "alembic": "cli",
    "sqlalchemy": "cli",
    "psycopg_pool": "cli",
}


def missing_extra_message(exc: ModuleNotFoundError) -> str | None:
    """The one line telling which extra to install, when exc is a module an extra brings."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRA_OF.get(top)
    if extra is None:
        return None
    return (f"pgq: the pgq command needs the '{extra}' extra ({top} is not installed):"
            f" pip install 'pgq-client[{extra}]'")


def main() -> None:
    """The console script: the command, or one line naming the extra it needs."""
    if sys.argv[1:] == ["--version"] and find_spec("typer") is not None:
        # The one answer that needs neither typer nor rich, which cost most of the start-up (without
        # the cli extra it still says which extra the command needs, below).
        from ._about import version_line

        print(version_line())
        return
    try:
        from ._commands import main as run
    except ModuleNotFoundError as exc:
        message = missing_extra_message(exc)
        if message is None:
            raise
        print(message, file=sys.stderr)
        raise SystemExit(1) from None
    run()


def __getattr__(name: str) -> Any:
    if name == "app":
        from ._commands import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
