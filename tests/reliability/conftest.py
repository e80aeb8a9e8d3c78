"""Fixtures for the reliability suites (fast ones; the long ones are in soak/).

* ``books``: the test database with the independent books installed (books.py);
  yields its URL.
* ``fleet``: start real worker processes (pgq_client.Worker in ledger_worker.py)
  on that database; whatever is still running at the end is killed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from . import books as books_mod
from .workers import Fleet


@pytest.fixture
def books(db_url: str) -> str:
    with psycopg.connect(db_url, autocommit=True) as conn:
        books_mod.install(conn)
    return db_url


@pytest.fixture
def fleet(books: str, tmp_path: Path) -> Iterator[Fleet]:
    workers = Fleet(books, tmp_path / "workers")
    yield workers
    workers.close()
