"""`pgq migrate`: run pgq's Alembic revisions (``alembic upgrade head``) on a database.

pgq's migrations are the repository's ``alembic/`` folder and ``alembic.ini``:
the revisions run frozen SQL snapshots checked by ``scripts/verify_frozen.py``,
so they are kept in one place rather than copied into this package (a second
copy could drift from the one the checks cover). The folder is found, in
order: ``--alembic-ini`` or ``$PGQ_ALEMBIC_INI``; next to this package when
it is installed from a checkout (``pip install -e python_client``, what
``make deps`` does); or in the current directory or one of its parents.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

ENV_VAR = "PGQ_ALEMBIC_INI"


class MigrationsNotFound(Exception):
    """No alembic.ini of pgq was found."""


def _is_pgq_ini(path: Path) -> bool:
    return path.is_file() and (path.parent / "alembic" / "pgq_sql.py").is_file()


def find_alembic_ini(explicit: str | None = None) -> Path:
    """The alembic.ini of pgq (see the module docstring for the search order)."""
    given = explicit or os.environ.get(ENV_VAR)
    if given:
        path = Path(given).expanduser().resolve()
        if path.is_dir():
            path = path / "alembic.ini"
        if not _is_pgq_ini(path):
            raise MigrationsNotFound(f"{given} is not pgq's alembic.ini (expected alembic/pgq_sql.py beside it)")
        return path
    starts = [Path(__file__).resolve().parent, Path.cwd().resolve()]
    for start in starts:
        for folder in (start, *start.parents):
            if _is_pgq_ini(folder / "alembic.ini"):
                return folder / "alembic.ini"
    raise MigrationsNotFound(
        "cannot find pgq's alembic.ini: run `pgq migrate` inside a checkout of pgq, "
        f"or pass --alembic-ini PATH (or set {ENV_VAR})"
    )


def upgrade(database_url: str, *, revision: str = "head", alembic_ini: str | None = None) -> Path:
    """``alembic upgrade <revision>`` with pgq's configuration on database_url; returns the ini used."""
    from alembic.config import Config

    from alembic import command

    ini = find_alembic_ini(alembic_ini)
    config = Config(str(ini))
    config.cmd_opts = argparse.Namespace(x=[f"url={database_url}"])
    command.upgrade(config, revision)
    return ini
