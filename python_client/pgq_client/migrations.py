"""pgq's Alembic migrations, as this package carries them: run them, or point your own Alembic at them.

    from pgq_client import migrations

    migrations.upgrade("postgresql://app@db/app")          # what `pgq migrate` does (to head)
    migrations.downgrade("postgresql://app@db/app", "base")
    migrations.version_location()   # .../site-packages/pgq_client/alembic/versions
    migrations.head()               # "0002": the schema revision this version installs

Where the migrations are. A built wheel carries a byte copy of the
repository's ``alembic.ini`` and ``alembic/`` (env.py, the revisions, their
frozen SQL snapshots) as ``pgq_client/alembic.ini`` and
``pgq_client/alembic/`` (python_client/build-backend/pgq_build.py makes the
copy; tests/packaging/ compares checksums). In a checkout (an editable install,
``make deps``), the package has no copy and the repository's own files beside
``python_client/`` are used. ``alembic_ini=`` (``pgq migrate --alembic-ini``,
``$PGQ_ALEMBIC_INI``) names another one.

Run on its own (``pgq migrate``, :func:`upgrade`), pgq's env.py keeps its
version table in ``q.alembic_version`` and makes concurrent runs take turns
(an advisory lock). In your application's own Alembic, list pgq's revisions
in ``version_locations`` (``pgq_client:alembic/versions`` in alembic.ini, or
:func:`version_location`): they carry the branch label ``pgq``, so
``alembic upgrade pgq@head`` runs them beside your own branch, recorded in
your version table. Needs the ``migrations`` extra (alembic, sqlalchemy).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alembic.config import Config

ENV_VAR = "PGQ_ALEMBIC_INI"
#: The branch label of pgq's revisions: ``alembic upgrade pgq@head`` in a host's Alembic.
BRANCH = "pgq"
#: alembic.ini's version_locations entry for a host application (a package resource, found wherever
#: pgq_client is installed).
VERSION_LOCATION_RESOURCE = "pgq_client:alembic/versions"

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parents[1]  # python_client/pgq_client -> the repository


def _alembic_or_hint(*, load: bool = True) -> None:
    """Stop with the pip command when alembic is missing; load=False only looks (importing alembic takes 0.3 s)."""
    try:
        if load:
            import alembic  # noqa: F401
        else:
            import importlib.util

            for name in ("alembic", "sqlalchemy"):
                if importlib.util.find_spec(name) is None:
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        raise ModuleNotFoundError(
            f"pgq_client.migrations needs the 'migrations' extra ({top} is not installed):"
            " pip install 'pgq-client[migrations]'", name=exc.name
        ) from exc


class MigrationsNotFound(Exception):
    """Neither the package nor a checkout around it holds pgq's alembic.ini and alembic/."""


def _is_pgq_ini(path: Path) -> bool:
    return path.is_file() and (path.parent / "alembic" / "pgq_sql.py").is_file()


def alembic_ini(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The alembic.ini in use: ``explicit`` or ``$PGQ_ALEMBIC_INI``, else the package's, else the checkout's."""
    given = explicit or os.environ.get(ENV_VAR)
    if given:
        path = Path(given).expanduser().resolve()
        if path.is_dir():
            path = path / "alembic.ini"
        if not _is_pgq_ini(path):
            raise MigrationsNotFound(f"{given} is not pgq's alembic.ini (expected alembic/pgq_sql.py beside it)")
        return path
    for candidate in (_PACKAGE / "alembic.ini", _CHECKOUT / "alembic.ini"):
        if _is_pgq_ini(candidate):
            return candidate
    raise MigrationsNotFound(
        f"pgq's migrations are not in {_PACKAGE} (a wheel carries them as pgq_client/alembic/; reinstall"
        f" pgq-client) nor in a checkout around it; or pass --alembic-ini PATH (or set {ENV_VAR})"
    )


def script_location(explicit: str | os.PathLike[str] | None = None) -> Path:
    """pgq's Alembic environment folder (env.py, versions/, sql/)."""
    return alembic_ini(explicit).parent / "alembic"


def version_location(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The folder of pgq's revisions, for a host application's ``version_locations``."""
    return script_location(explicit) / "versions"


def config(database_url: str = "", *, alembic_ini_path: str | os.PathLike[str] | None = None) -> Config:
    """An Alembic Config of pgq's own environment, on ``database_url`` (empty: ``$DATABASE_URL`` / PG*)."""
    _alembic_or_hint()
    from alembic.config import Config

    made = Config(str(alembic_ini(alembic_ini_path)))
    if database_url:
        made.cmd_opts = argparse.Namespace(x=[f"url={database_url}"])
    return made


_REVISION = re.compile(r"^revision\s*(?::[^=]+)?=\s*[\"']([^\"']+)[\"']", re.M)
_DOWN_REVISION = re.compile(r"^down_revision\s*(?::[^=]+)?=\s*(.+)$", re.M)


def _heads_from_files(versions: Path) -> list[str]:
    """The revisions no other revision names as its down_revision, read from the files' assignments."""
    revisions: set[str] = set()
    downs: set[str] = set()
    for path in versions.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        found = _REVISION.search(text)
        if found is None:
            continue
        revisions.add(found.group(1))
        down = _DOWN_REVISION.search(text)
        if down is not None:
            downs.update(re.findall(r"[\"']([^\"']+)[\"']", down.group(1)))
    return sorted(revisions - downs)


def head(alembic_ini_path: str | os.PathLike[str] | None = None) -> str:
    """The revision at pgq's head: the schema this version of the package installs.

    Read from the revision files' ``revision``/``down_revision`` lines (``pgq --version`` stays
    fast); Alembic itself decides (and explains) when that does not give exactly one head.
    """
    _alembic_or_hint(load=False)
    quick = _heads_from_files(version_location(alembic_ini_path))
    if len(quick) == 1:
        return quick[0]
    _alembic_or_hint()
    from alembic.script import ScriptDirectory

    heads = ScriptDirectory.from_config(config(alembic_ini_path=alembic_ini_path)).get_heads()
    if len(heads) != 1:
        raise MigrationsNotFound(f"pgq's migrations have {len(heads)} heads ({', '.join(heads)}), expected one")
    return heads[0]


def current(database_url: str = "", *, alembic_ini_path: str | os.PathLike[str] | None = None) -> str | None:
    """The pgq revision a database is at (``q.alembic_version``), or None when pgq is not installed."""
    import psycopg

    with psycopg.connect(database_url or os.environ.get("DATABASE_URL", ""), autocommit=True) as conn:
        found = conn.execute("select to_regclass('q.alembic_version') is not null").fetchone()
        if not found or not found[0]:
            return None
        row = conn.execute("select version_num from q.alembic_version").fetchone()
        return str(row[0]) if row else None


def upgrade(
    database_url: str = "", revision: str = "head", *, alembic_ini_path: str | os.PathLike[str] | None = None
) -> str:
    """``alembic upgrade <revision>`` with pgq's environment; returns the revision the database is at."""
    _alembic_or_hint()
    from alembic import command

    command.upgrade(config(database_url, alembic_ini_path=alembic_ini_path), revision)
    return current(database_url) or "base"


def downgrade(
    database_url: str = "", revision: str = "base", *, alembic_ini_path: str | os.PathLike[str] | None = None
) -> str:
    """``alembic downgrade <revision>`` (``base`` removes pgq: schema q and its roles' grants); returns where it is."""
    _alembic_or_hint()
    from alembic import command

    command.downgrade(config(database_url, alembic_ini_path=alembic_ini_path), revision)
    return current(database_url) or "base"


#: ``migrate(url)`` reads as the command does.
migrate = upgrade

__all__ = [
    "BRANCH",
    "ENV_VAR",
    "VERSION_LOCATION_RESOURCE",
    "MigrationsNotFound",
    "alembic_ini",
    "config",
    "current",
    "downgrade",
    "head",
    "migrate",
    "script_location",
    "upgrade",
    "version_location",
]
