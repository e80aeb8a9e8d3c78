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

import weakref
from pathlib import Path
from typing import Any

from alembic import op

FROZEN = Path(__file__).resolve().parent / "sql"

# The cluster-wide roles pgq's SQL grants to (sql/schema/015_roles.sql, 070_observe.sql, revision
# 0008's pgq_monitor), and the memberships it makes among them: pgq_admin can do what the others can,
# pgq_viewer what pgq_monitor can.
ROLES = ("pgq_owner", "pgq_producer", "pgq_worker", "pgq_admin", "pgq_viewer", "pgq_monitor")
MEMBERSHIPS = (("pgq_admin", "pgq_producer"), ("pgq_admin", "pgq_worker"), ("pgq_admin", "pgq_viewer"),
               ("pgq_viewer", "pgq_monitor"))

# What the installing role has, asked once per connection before the first snapshot runs.
PRIVILEGES = """
select r.rolname, r.rolsuper, r.rolcreaterole,
       has_database_privilege(current_database(), 'CREATE'),
       array(select x from unnest(%(roles)s::text[]) x where not exists (select from pg_roles o where o.rolname = x)),
       case when exists (select from pg_roles o where o.rolname = 'pgq_owner')
            then pg_has_role('pgq_owner', 'member') else false end,
       array(select m[1] || ' -> ' || m[2] from (select string_to_array(x, ',') m from unnest(%(pairs)s::text[]) x) y
              where case when exists (select from pg_roles a where a.rolname = m[1])
                              and exists (select from pg_roles b where b.rolname = m[2])
                         then not pg_has_role(m[1], m[2], 'member') else false end)
  from pg_roles r where r.rolname = current_user
"""


# Connections already prepared: run_frozen runs some 150 snapshots per upgrade, and the roles are made
# (or found missing) by the first; later revisions need no role the first did not make.
_prepared: weakref.WeakSet[Any] = weakref.WeakSet()


class InstallPrivilegeError(RuntimeError):
    """The installing role lacks a privilege pgq's migrations need; the message says which and what to do."""


def prepare_roles(connection: Any) -> None:
    """Make pgq installable by a database owner that is not a superuser, before any snapshot runs.

    Superusers need nothing. A role with CREATEROLE creates pgq's roles and memberships itself and
    makes itself a member of pgq_owner (on PostgreSQL 15 CREATEROLE does not make it a member of
    the roles it creates, and handing pgq's objects to pgq_owner needs that membership). A role
    without CREATEROLE needs the roles made beforehand (sql/roles.sql, run once per cluster by
    someone who may) and membership in pgq_owner: otherwise this stops before anything is written,
    naming what is missing and the statements that fix it.
    """
    if connection in _prepared:
        return
    with connection.cursor() as cursor:
        cursor.execute(PRIVILEGES, {"roles": list(ROLES), "pairs": [",".join(p) for p in MEMBERSHIPS]})
        me, superuser, createrole, create_db, missing, owner_member, loose = cursor.fetchone()
        if superuser:
            _prepared.add(connection)
            return
        problems = []
        if not create_db:
            problems.append(f"CREATE on this database (GRANT CREATE ON DATABASE <db> TO {me}; or install as its owner)")
        if createrole:
            for role in missing:
                cursor.execute(f'create role "{role}" nologin')
            for member_of in loose + [f"{m} -> {r}" for m, r in MEMBERSHIPS if m in missing or r in missing]:
                member, role = member_of.split(" -> ")
                cursor.execute(f'grant "{role}" to "{member}"')
            if not owner_member:
                cursor.execute(f'grant pgq_owner to "{me}"')
        else:
            if missing:
                problems.append(f"the roles {', '.join(missing)} (and CREATEROLE to make them)")
            if loose:
                problems.append(f"the memberships {', '.join(loose)}")
            if not owner_member:
                problems.append("membership in pgq_owner (pgq's objects belong to it)")
        if problems:
            fix = [f"CREATE ROLE {role} NOLOGIN;" for role in missing]
            fix += [f"GRANT {r} TO {m};" for m, r in MEMBERSHIPS
                    if f"{m} -> {r}" in loose or m in missing or r in missing]
            fix += [] if owner_member else [f'GRANT pgq_owner TO "{me}";']
            raise InstallPrivilegeError(
                f"pgq cannot be installed by role {me}: it lacks " + "; ".join(problems) + ". Nothing was "
                "changed. Ask someone with CREATEROLE (or a superuser) to run, once per cluster: "
                + " ".join(fix) + " (sql/roles.sql does the same); then run the migration again."
            )
    _prepared.add(connection)


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
    prepare_roles(connection)
    with connection.cursor() as cursor:
        for path in expand(target):
            cursor.execute(path.read_text())
