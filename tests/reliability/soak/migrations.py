"""Suite 10, migrations under load: `alembic upgrade head` from the previous
revision while 4 workers run jobs enqueued at 200 jobs/s, then down and up
again: no lost job, no error a worker does not retry, no lock held (or
waited for) 2 s or more.

While pgq has a single revision there is no previous one to upgrade from, so
the suite builds the next revision `make revision` would write if every
function changed: a copy of alembic/ with one more revision that re-creates
every function from the head snapshot (CREATE OR REPLACE, as pgq's revisions
do) and re-sets q_data.job's storage parameters (a table delta under
ShareUpdateExclusiveLock). With two or more real revisions it uses the real
head and its parent instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
from alembic.config import Config
from alembic.script import ScriptDirectory
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from .. import books
from ..workers import Fleet
from .cluster import ALEMBIC, ROOT, Cluster
from .load import Producer, wait_drained

SCHEMA_CHANGED = ("UndefinedColumn", "UndefinedTable", "UndefinedFunction")
WORKERS = 4
RATE = 200.0
SECONDS = 25.0
LOCK_LIMIT = 2.0
APP = "pgq-soak-migrate"

NEXT_REVISION = '''"""soak: re-create every function (what `make revision` writes when all of them change)"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "9999"
down_revision = "{head}"
branch_labels = None
depends_on = None
FILES = {files!r}


def upgrade() -> None:
    op.execute("alter table q_data.job set (autovacuum_vacuum_threshold = 1000)")
    for relative in FILES:
        run_frozen("{head}", relative)


def downgrade() -> None:
    op.execute("alter table q_data.job set (autovacuum_vacuum_threshold = 1000)")
    for relative in FILES:
        run_frozen("{head}", relative)
'''


def migration_tree() -> tuple[Path, str, str]:
    """An alembic.ini and alembic/ to run, the revision to start from and the one to upgrade to."""
    script = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini")))
    head = script.get_current_head()
    assert head is not None
    parent = script.get_revision(head).down_revision
    if parent is not None:
        return ROOT, str(parent), head
    tree = Path(tempfile.mkdtemp(prefix="pgq-soak-alembic-"))
    shutil.copy(ROOT / "alembic.ini", tree / "alembic.ini")
    shutil.copytree(ROOT / "alembic", tree / "alembic", ignore=shutil.ignore_patterns("__pycache__"))
    frozen = tree / "alembic" / "sql" / head
    files = sorted(str(p.relative_to(frozen)) for d in ("internal", "functions") for p in (frozen / d).glob("*.sql"))
    (tree / "alembic" / "versions" / "9999_soak_recreate_functions.py").write_text(
        NEXT_REVISION.format(head=head, files=files))
    return tree, head, "9999"


class LockWatch(threading.Thread):
    """Samples pg_locks: how long the migration held each lock, and how long anyone waited for one."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.first_seen: dict[tuple[Any, ...], float] = {}
        self.longest_hold: dict[str, float] = {}
        self.longest_wait = 0.0

    def run(self) -> None:
        dbname = conninfo_to_dict(self.url).get("dbname")
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stop.is_set():
                now = time.monotonic()
                held = conn.execute(
                    "select l.pid, l.locktype, coalesce(l.relation::regclass::text, l.classid::text || '/' ||"
                    "       l.objid::text, l.transactionid::text, l.virtualxid, ''), l.mode"
                    "  from pg_locks l join pg_stat_activity a on a.pid = l.pid"
                    " where a.application_name = %s and l.granted and a.datname = %s",
                    (APP, dbname),
                ).fetchall()
                keys = {tuple(r) for r in held}
                for key in keys:
                    self.first_seen.setdefault(key, now)
                    label = f"{key[1]} {key[2]} {key[3]}"
                    self.longest_hold[label] = max(self.longest_hold.get(label, 0.0), now - self.first_seen[key])
                for key in [k for k in self.first_seen if k not in keys]:
                    del self.first_seen[key]
                waited = conn.execute(
                    "select max(extract(epoch from clock_timestamp() - state_change)) from pg_stat_activity"
                    " where wait_event_type = 'Lock' and datname = %s", (dbname,)
                ).fetchone()[0]
                if waited is not None:
                    self.longest_wait = max(self.longest_wait, float(waited))
                time.sleep(0.02)


def alembic(tree: Path, url: str, *args: str) -> float:
    started = time.monotonic()
    env = {**os.environ, "DATABASE_URL": make_conninfo(url, application_name=APP)}
    done = subprocess.run([ALEMBIC, "-c", str(tree / "alembic.ini"), *args], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return time.monotonic() - started


def run(cluster: Cluster, logs: Path) -> dict[str, Any]:
    tree, previous, target = migration_tree()
    url = cluster.new_database("soak_migrate")
    alembic(tree, url, "upgrade", previous)  # no load yet: the database a deploy starts from
    with psycopg.connect(url, autocommit=True) as conn:
        books.install(conn)
    fleet = Fleet(url, logs / "migrations")
    watch = LockWatch(url)
    try:
        fleet.wait_ready([fleet.start(f"migrate-{i}", "migrate", concurrency=2) for i in range(WORKERS)])
        producer = Producer(url, "migrate", int(RATE * SECONDS), RATE)
        producer.start()
        watch.start()
        load_started = time.monotonic()
        steps = []
        for at, args in ((5.0, ("upgrade", target)), (12.0, ("downgrade", previous)), (19.0, ("upgrade", target))):
            time.sleep(max(0.0, load_started + at - time.monotonic()))
            steps.append((" ".join(args), alembic(tree, url, *args)))
        producer.join(60)
        assert producer.error is None, f"producer failed: {producer.error!r}"
        with psycopg.connect(url, autocommit=True) as conn:
            wait_drained(conn, 120)
            fleet.stop_all()
            result = books.audit(conn, producer.committed)
            version = conn.execute("select version_num from q.alembic_version").fetchone()[0]
        watch.stop.set()
        watch.join(5)
        relation_holds = {k: v for k, v in watch.longest_hold.items() if not k.startswith("advisory")}
        longest = max(relation_holds.items(), key=lambda kv: kv[1]) if relation_holds else ("-", 0.0)
        events = fleet.event_counts()
        # A call that began just before a migration committed runs the function body it looked up
        # then, against the tables as the migration left them (the downgrade drops 0009's columns):
        # one UndefinedColumn/Table/Function per call in flight. The claim loop and the reaper turn
        # carry such a round and send it again (the books above show what that cost: nothing lost,
        # nothing run twice), so those count as retried; any other db_error does not.
        errors = fleet.errors()
        schema_changed = [e for e in errors if e.get("component") in ("claim loop", "maintenance")
                          and str(e.get("error", "")).startswith(SCHEMA_CHANGED)]
        figures = {
            "from": previous, "to": target, "migrations_under_load": len(steps),
            "migration_s": " ".join(f"{s:.2f}" for _, s in steps),
            "jobs": result.enqueued, "rate_jobs_per_s": RATE, "workers": WORKERS,
            "lost": result.lost, "unfinished": result.unfinished,
            "duplicate_executions": result.duplicate_executions,
            "duplicate_terminal_writes": result.duplicate_terminal_writes,
            "worker_errors_not_retried": len(errors) - len(schema_changed),
            "worker_errors_retried": events.get("db_unavailable", 0),
            "schema_changed_errors_retried": len(schema_changed),
            "longest_lock_held_s": round(longest[1], 3), "longest_lock": longest[0],
            "longest_lock_wait_s": round(watch.longest_wait, 3), "version_after": version,
        }
        failures = []
        if result.lost or result.unfinished or result.duplicate_terminal_writes or result.duplicate_executions:
            failures.append("jobs lost, unfinished or run twice")
        if figures["worker_errors_not_retried"]:
            failures.append("a worker hit an error it does not retry")
        if longest[1] >= LOCK_LIMIT or watch.longest_wait >= LOCK_LIMIT:
            failures.append("a lock was held or waited for 2 s or more")
        if version != target:
            failures.append(f"ended at revision {version}, not {target}")
        figures["failures"] = "; ".join(failures) or "none"
        return figures
    finally:
        watch.stop.set()
        fleet.close()
        if tree != ROOT:
            shutil.rmtree(tree, ignore_errors=True)

