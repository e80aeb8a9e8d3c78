"""Alembic environment for pgq.

The version table lives in schema q (q.alembic_version) and pgq's revisions
carry the branch label ``pgq``, so a host application can list
``<pgq>/alembic/versions`` in its own ``version_locations`` and run
``alembic upgrade pgq@head`` next to its own migrations.

Several processes may run ``alembic upgrade head`` at once (every replica of a
service on deploy): they take turns on a table lock, and the later ones find
the database already at head. The lock is ``LOCK TABLE q.alembic_version IN
SHARE UPDATE EXCLUSIVE MODE`` (a mode that conflicts with itself but not with
the row updates Alembic makes), held by a second connection of the runner for
the whole run. Only roles with rights on that table (its owner, superusers)
can take it. Up to 0002 it was the advisory lock (1885827328, -1), which any
login role could hold to make every upgrade wait forever.
"""

from __future__ import annotations

import os
import time
from logging.config import fileConfig

import psycopg
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, pool, text
from sqlalchemy.exc import DBAPIError

from alembic import context

MIGRATION_LOCK = "lock table q.alembic_version in share update exclusive mode"

if context.config.config_file_name is not None:
    fileConfig(context.config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    """DATABASE_URL (or -x url=...) as given: a URL, a libpq key=value string, or empty for PG* variables."""
    return context.get_x_argument(as_dictionary=True).get("url") or os.environ.get("DATABASE_URL", "")


def engine_for(url: str) -> Engine:
    """An engine on the psycopg 3 driver, whichever form the URL has."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return create_engine("postgresql+psycopg://" + url[len(prefix):], poolclass=pool.NullPool)
    if "://" in url:
        raise SystemExit(f"DATABASE_URL must be a postgresql:// URL, got {url.split('://', 1)[0]}://...")
    # libpq key=value string, or empty: let libpq read it and the PG* variables.
    return create_engine(
        "postgresql+psycopg://", poolclass=pool.NullPool, creator=lambda: psycopg.connect(url)
    )


def run_migrations_offline() -> None:
    context.configure(
        url=engine_for(database_url()).url,
        literal_binds=True,
        version_table_schema="q",
    )
    with context.begin_transaction():
        context.run_migrations()


def create_version_table(engine: Engine) -> None:
    """Schema q and Alembic's version table in it, if missing, so there is a
    table to lock. Concurrent first runs race on the catalog (a unique
    violation on pg_namespace or pg_type): the loser tries again."""
    for attempt in range(50):
        with engine.connect() as connection:
            try:
                connection.execute(text("create schema if not exists q"))
                MigrationContext.configure(connection, opts={"version_table_schema": "q"})._ensure_version_table()
                connection.commit()
                return
            except DBAPIError as exc:
                connection.rollback()
                if not isinstance(exc.orig, (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateObject,
                                             psycopg.errors.DuplicateTable, psycopg.errors.DuplicateSchema)):
                    raise
                time.sleep(0.02 * (attempt + 1))
    raise SystemExit("could not create q.alembic_version")


def run_migrations_online() -> None:
    engine = engine_for(database_url())
    create_version_table(engine)
    # The lock lives in a transaction of its own connection, held open while
    # the migrations run on the other, all in one transaction: an upgrade that
    # fails anywhere leaves the database at the revision it started from (up
    # to 0007 each revision committed on its own, and a failure in 0003 left
    # a database half-migrated at 0002).
    with engine.connect() as holder, engine.connect() as connection:
        holder.execute(text(MIGRATION_LOCK))
        try:
            context.configure(
                connection=connection,
                target_metadata=None,
                version_table_schema="q",
                transaction_per_migration=False,
            )
            with context.begin_transaction():
                context.run_migrations()
            connection.commit()
        finally:
            connection.rollback()
            holder.rollback()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
