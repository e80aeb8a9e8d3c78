"""Which queues a worker serves in which database, when it serves more than one (no I/O here).

A worker process may serve queues that live in several databases: one pgq
per application database, each queue in the database that holds the data its
jobs are enqueued with (``docs/manual/several-databases.md``). Two ways to say
which queues are where, both accepted by :class:`~pgq_client.App` (``databases=``),
``app.worker(databases=...)`` and ``pgq worker --database-url A --database-url B``:

* a list of URLs: every queue of the worker in every database (the same
  application, one database per tenant or per region);
* a queue -> URL map: each queue in the one database named for it (queues of
  different applications, or a queue moved to a database of its own). A queue
  the worker serves must be in the map.

Each database gets a worker of its own (its pool, listener, claim loops and
reaper turn), so a database that goes away stalls only its own queues.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import psycopg
from psycopg.conninfo import conninfo_to_dict

from .options import check_queue_name

# What databases= may be: a list of URLs, or a queue -> URL map.
Databases = Sequence[str] | Mapping[str, str]


@dataclass(frozen=True)
class Database:
    """One database of a worker that serves several: its label (in logs, worker names and
    ``pgq stats``), its URL, and the queues served there (None: every queue of the worker)."""

    label: str
    url: str
    queues: tuple[str, ...] | None = None


def label(url: str) -> str:
    """A short name for a database URL: its dbname, else host:port, else "default" (libpq's environment)."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "database"
    name = parts.get("dbname")
    if name:
        return str(name)
    where = ":".join(str(parts[k]) for k in ("host", "port") if parts.get(k))
    return where or "default"


def _long_label(url: str) -> str:
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "database"
    host = str(parts.get("host") or "local").split(",")[0]
    if host.startswith("/"):  # a socket directory: its path says little, the port says which server
        host = "socket"
    return f"{host}:{parts.get('port') or 5432}/{parts.get('dbname') or 'default'}"


def labels(urls: Sequence[str]) -> list[str]:
    """One label per URL, distinct: the dbname where that tells them apart, else host:port/dbname,
    else the position (#1, #2, ...) appended."""
    short = [label(u) for u in urls]
    chosen = [s if short.count(s) == 1 else _long_label(u) for s, u in zip(short, urls, strict=True)]
    return [c if chosen.count(c) == 1 else f"{c}#{i + 1}" for i, c in enumerate(chosen)]


def plan(databases: Databases, queues: Sequence[str]) -> list[Database]:
    """The databases a worker of ``queues`` serves, and which queues in each; ValueError on a bad setting.

    A list of URLs: each database serves every queue. A queue -> URL map: each
    database serves the queues mapped to it (of ``queues``); every queue of
    ``queues`` must be mapped, and a database with none of them is left out.
    """
    if isinstance(databases, str):
        databases = [databases]
    if isinstance(databases, Mapping):
        for queue, url in databases.items():
            check_queue_name(queue)
            if not isinstance(url, str) or not url.strip():
                raise ValueError(f"databases: queue {queue!r} needs a database URL, got {url!r}")
        unmapped = [q for q in queues if q not in databases]
        if unmapped:
            raise ValueError(f"databases: no database for queue(s) {', '.join(unmapped)}: map every queue the worker"
                             " serves to the URL of the database that holds it")
        urls = list(dict.fromkeys(databases[q] for q in queues))
        return [Database(name, url, tuple(q for q in queues if databases[q] == url))
                for name, url in zip(labels(urls), urls, strict=True)]
    urls = list(databases)
    if not urls:
        raise ValueError("databases: give at least one database URL")
    for url in urls:
        if not isinstance(url, str) or not url.strip():
            raise ValueError(f"databases: every entry must be a database URL, got {url!r}")
    if len(set(urls)) != len(urls):
        raise ValueError("databases: a database URL is listed twice (two workers would serve its queues)")
    return [Database(name, url) for name, url in zip(labels(urls), urls, strict=True)]
