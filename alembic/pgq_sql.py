"""Runs pgq's frozen SQL snapshots from Alembic revisions.

A revision never reads today's ``sql/``: it runs the byte copy frozen under
``alembic/sql/<revision>/`` when it was written (see scripts/new_revision.py),
so an old revision always installs what it installed then, and a downgrade can
restore the previous bodies. Files are executed through the raw psycopg
connection, because SQLAlchemy would read ``:name`` inside function bodies as
bind parameters and ``%`` as a placeholder.

The psql meta-commands a snapshot may use are ``\\ir <file>`` (include,
relative to the including file) and ``\\set ...`` (ignored).
"""

from __future__ import annotations

from pathlib import Path

from alembic import op

FROZEN = Path(__file__).resolve().parent / "sql"


def expand(path: Path) -> list[Path]:
    """The SQL files a snapshot file stands for, in execution order."""
    files: list[Path] = []
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("\\ir "):
            files.extend(expand(path.parent / stripped[4:].strip()))
    return files or [path]


def run_frozen(revision: str, relative: str) -> None:
    """Execute alembic/sql/<revision>/<relative> (and what it includes)."""
    target = FROZEN / revision / relative
    if not target.is_file():
        raise FileNotFoundError(f"frozen snapshot {target} is missing")
    connection = op.get_bind().connection.driver_connection
    with connection.cursor() as cursor:
        for path in expand(target):
            cursor.execute(path.read_text())
