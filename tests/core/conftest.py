"""Fixtures for the SQL-core suites: more sessions on the test database, and
real worker processes (forked, each with its own connection).

* ``connect``: open another session on the test database (closed afterwards).
* ``run_processes``: run a function in N forked processes and collect what each
  returns; a child's exception fails the test with the child's traceback.
"""

from __future__ import annotations

import multiprocessing
import queue
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg
import pytest

# fork: children inherit the test module's functions without re-importing it.
# A forked child leaves through os._exit, so it never closes (or sends a
# Terminate on) the parent's inherited connections.
FORK = multiprocessing.get_context("fork")

Connect = Callable[..., psycopg.Connection[Any]]
RunProcesses = Callable[..., list[Any]]


@pytest.fixture
def connect(db_url: str) -> Iterator[Connect]:
    opened: list[psycopg.Connection[Any]] = []

    def make(autocommit: bool = True, **kwargs: Any) -> psycopg.Connection[Any]:
        opened.append(psycopg.connect(db_url, autocommit=autocommit, **kwargs))
        return opened[-1]

    yield make
    for connection in opened:
        connection.close()


def _child(target: Callable[..., Any], args: Sequence[Any], index: int, results: Any) -> None:
    try:
        results.put((index, True, target(*args)))
    except BaseException:  # report everything, including KeyboardInterrupt-like exits
        results.put((index, False, traceback.format_exc()))


@pytest.fixture
def run_processes() -> Iterator[RunProcesses]:
    started: list[Any] = []

    def run(target: Callable[..., Any], args_per_process: Sequence[Sequence[Any]], timeout: float = 120.0) -> list[Any]:
        """target(*args) in one forked process per args tuple; returns their return values in order."""
        results = FORK.Queue()
        procs = [
            FORK.Process(target=_child, args=(target, args, i, results)) for i, args in enumerate(args_per_process)
        ]
        started.extend(procs)
        for proc in procs:
            proc.start()
        values: dict[int, Any] = {}
        failures: list[str] = []
        deadline = time.monotonic() + timeout
        while len(values) + len(failures) < len(procs):
            try:
                index, ok, value = results.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                missing = len(procs) - len(values) - len(failures)
                pytest.fail(f"{missing} worker processes did not finish in {timeout} s")
            if ok:
                values[index] = value
            else:
                failures.append(f"worker {index}:\n{value}")
        for proc in procs:
            proc.join(timeout=10)
        if failures:
            pytest.fail("\n".join(failures))
        return [values[i] for i in range(len(procs))]

    yield run
    for proc in started:
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=10)
