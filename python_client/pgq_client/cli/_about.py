"""``pgq --version``'s line, importable without typer or rich (design.md#a-command-that-starts-fast)."""

from __future__ import annotations

from .. import migrations
from .._version import __version__
from ..migrations import MigrationsNotFound


def version_line() -> str:
    """``pgq --version``: the package's version and the schema revision it installs (pgq's Alembic head)."""
    try:
        revision = migrations.head()
    except MigrationsNotFound as exc:
        revision = f"unknown: {exc}"
    return f"pgq {__version__} (pgq-client {__version__}, schema revision {revision})"
