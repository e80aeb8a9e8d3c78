"""Alembic environment for pgq.

The version table lives in schema q (q.alembic_version) and pgq's revisions
carry the branch label ``pgq``, so a host application can list
``<pgq>/alembic/versions`` in its own ``version_locations`` and run
``alembic upgrade pgq@head`` next to its own migrations.

Several processes may run ``alembic upgrade head`` at once (every replica of a
service on deploy): a session advisory lock makes them take turns, and the
later ones find the database already at head.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

import psycopg
from sqlalchemy import Engine, create_engine, pool, text

from alembic import context

# (q.lock_space(), -1): see sql/internal/lock_space.sql.
MIGRATION_LOCK = "select pg_advisory_lock(1885827328, -1)"
MIGRATION_UNLOCK = "select pg_advisory_unlock(1885827328, -1)"

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


def run_migrations_online() -> None:
    engine = engine_for(database_url())
    with engine.connect() as connection:
        connection.execute(text(MIGRATION_LOCK))
        try:
            # The version table lives in q, so q must exist before Alembic
            # looks for it; under the lock, so concurrent runs do not race.
            connection.execute(text("create schema if not exists q"))
            connection.commit()
            context.configure(
                connection=connection,
                target_metadata=None,
                version_table_schema="q",
                transaction_per_migration=True,
            )
            with context.begin_transaction():
                context.run_migrations()
            connection.commit()
        finally:
            connection.rollback()
            connection.execute(text(MIGRATION_UNLOCK))
            connection.commit()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
