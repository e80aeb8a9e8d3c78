"""No role pgq grants can stop the queue by queueing a DDL lock on pgq's tables.

PostgreSQL queues the lock of CREATE RULE (ACCESS EXCLUSIVE) and CREATE
TRIGGER (SHARE ROW EXCLUSIVE) before it checks ownership, and every later
access to the table waits behind that request. Up to revision 0007 the tables
were in schema q, where every pgq role has USAGE: a pgq_viewer session's
``create rule r as on insert to q.job do nothing``, queued behind another
session's open read, stopped every claim and enqueue until that read ended
(a review measured 0 claims and 0 enqueues in 10 s). From 0008 they are in
schema q_data, on which no pgq role has USAGE: the statement fails with 42501
while the name is resolved, before any lock is requested.

Here, with real sessions: a viewer holds a read transaction open (as the
review's session 1 did), producers enqueue and workers claim and complete in
threads of their own, and login roles of every pgq role (and one with no pgq
rights) send CREATE RULE, CREATE TRIGGER, LOCK and ALTER TABLE against every
pgq table. Every attack fails at once with 42501, a sampler of
pg_stat_activity sees no producer or worker session wait on a table lock, and
enqueues and claims go on throughout (the slowest call is reported; the
bound asserted is generous, a lock queue would hold them for the whole run).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from tests.conftest import admin

ROLES = ("pgq_viewer", "pgq_producer", "pgq_worker", "pgq_admin", None)
ATTACKS = (
    ("create rule", "create rule pgq_squat as on insert to {t} do instead nothing"),
    ("create trigger", "create trigger pgq_squat before insert on {t} for each row"
                       " execute function pg_catalog.suppress_redundant_updates_trigger()"),
    ("lock", "begin; lock table {t} in access exclusive mode; rollback"),
    ("alter table", "alter table {t} add column pgq_squat integer"),
)


def as_login(url: str, login: str) -> str:
    return make_conninfo(**{**conninfo_to_dict(url), "user": login})


@pytest.fixture
def logins() -> Iterator[dict[str | None, str]]:
    """A login role per pgq role (and one with no pgq rights): role -> login name."""
    names = {role: f"pgq_ddl_{(role or 'nobody').removeprefix('pgq_')}_{uuid.uuid4().hex[:6]}" for role in ROLES}
    with admin() as conn:
        for role, login in names.items():
            conn.execute(f'create role "{login}" login' + (f" in role {role}" if role else ""))
    yield names
    with admin() as conn:
        for login in names.values():
            conn.execute("select pg_terminate_backend(pid) from pg_stat_activity where usename = %s", (login,))
            conn.execute(f'drop role if exists "{login}"')


def pgq_tables(conn: psycopg.Connection[Any]) -> list[str]:
    """Every table pgq owns, as a schema-qualified name (and the names they had up to 0007)."""
    rows = conn.execute(
        "select c.relnamespace::regnamespace::text || '.' || c.relname from pg_catalog.pg_class c"
        " where c.relowner = 'pgq_owner'::regrole and c.relkind = 'r' order by 1").fetchall()
    return [r[0] for r in rows]


class Traffic:
    """Producers enqueueing and workers claiming + completing, each call timed, until stopped."""

    def __init__(self, url: str, logins: dict[str | None, str]) -> None:
        self.url, self.logins = url, logins
        self.stop = threading.Event()
        self.calls = {"enqueue": 0, "claim": 0}
        self.slowest = {"enqueue": 0.0, "claim": 0.0}
        self.errors: list[str] = []
        self.pids: set[int] = set()
        self.threads = [threading.Thread(target=self._produce, daemon=True) for _ in range(2)]
        self.threads += [threading.Thread(target=self._work, daemon=True) for _ in range(2)]

    def _timed(self, kind: str, fn: Any) -> None:
        t0 = time.perf_counter()
        fn()
        took = time.perf_counter() - t0
        self.calls[kind] += 1
        self.slowest[kind] = max(self.slowest[kind], took)

    def _loop(self, login: str, step: Any) -> None:
        try:
            with psycopg.connect(as_login(self.url, login), autocommit=True) as conn:
                self.pids.add(conn.info.backend_pid)
                while not self.stop.is_set():
                    step(conn)
        except Exception as exc:  # recorded, asserted on by the test
            self.errors.append(repr(exc))

    def _produce(self) -> None:
        self._loop(self.logins["pgq_producer"], lambda conn: self._timed(
            "enqueue", lambda: conn.execute("select q.enqueue('ddl', '{\"n\": 1}')")))

    def _work(self) -> None:
        def step(conn: psycopg.Connection[Any]) -> None:
            rows: list[Any] = []
            claim = "select id, token from q.claim('ddl', 5)"
            self._timed("claim", lambda: rows.extend(conn.execute(claim).fetchall()))
            if rows:
                conn.execute("select * from q.complete_many(%s, %s)", ([r[0] for r in rows], [r[1] for r in rows]))
            else:
                time.sleep(0.005)
        self._loop(self.logins["pgq_worker"], step)

    def __enter__(self) -> Traffic:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(10)


def lock_waits(conn: psycopg.Connection[Any], pids: set[int]) -> list[Any]:
    """Sessions of the traffic waiting for a lock on a table. (Not the 'object' lock two producers'
    commits take turns on: every transaction that sent a NOTIFY holds it through its commit.)"""
    return conn.execute(
        "select pid, wait_event, left(query, 60) from pg_stat_activity"
        " where pid = any(%s) and wait_event_type = 'Lock' and wait_event = 'relation'", (list(pids),)).fetchall()


def test_no_granted_role_can_queue_a_lock_that_stops_claims_or_enqueues(
    db_url: str, logins: dict[str | None, str]
) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        tables = pgq_tables(conn)
    assert "q_data.job" in tables and len(tables) >= 15

    reader = psycopg.connect(as_login(db_url, logins["pgq_viewer"]))  # the review's session 1: an open read
    reader.execute("select count(*) from q.stats()")
    refused: list[tuple[str, str, str, str | None]] = []
    waits: list[Any] = []
    try:
        with Traffic(db_url, logins) as traffic, psycopg.connect(db_url, autocommit=True) as watcher:
            time.sleep(0.5)  # traffic under way
            for role, login in logins.items():
                with psycopg.connect(as_login(db_url, login), autocommit=True) as attacker:
                    attacker.execute("set statement_timeout = '5s'")
                    for table in tables:
                        for kind, template in ATTACKS:
                            try:
                                attacker.execute(template.format(t=table))
                            except psycopg.Error as exc:
                                refused.append((role or "no pgq role", kind, table, exc.sqlstate))
                                if attacker.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                                    attacker.execute("rollback")  # (LOCK runs in a block of its own)
                            else:
                                refused.append((role or "no pgq role", kind, table, "succeeded"))
                            waits += lock_waits(watcher, traffic.pids)
            time.sleep(0.5)
            waits += lock_waits(watcher, traffic.pids)
    finally:
        reader.close()

    assert not traffic.errors, traffic.errors[:3]
    assert len(refused) == len(logins) * len(tables) * len(ATTACKS)
    assert {r[3] for r in refused} == {"42501"}, [r for r in refused if r[3] != "42501"][:5]
    assert waits == [], "no producer or worker session ever waited on a table lock"
    assert traffic.calls["enqueue"] > 50 and traffic.calls["claim"] > 50, traffic.calls
    # A queued DDL lock would hold every call for the whole attack (seconds); the calls' own
    # time on a busy 2-core machine stays far below this.
    assert max(traffic.slowest.values()) < 2.0, traffic.slowest
    slowest = {kind: f"{s * 1000:.1f} ms" for kind, s in traffic.slowest.items()}
    print(f"\n{len(refused)} DDL statements refused with 42501; {traffic.calls} calls, slowest {slowest}")
