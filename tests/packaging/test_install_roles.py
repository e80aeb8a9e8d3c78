"""Installing pgq with the privileges a managed database gives, and upgrades that are all or nothing.

Up to 0007, `pgq migrate` as the database's owner on PostgreSQL 15 failed in revision 0001 with
"permission denied to create role"; with CREATEROLE it failed in 0003 with "must be member of role
pgq_owner" (CREATEROLE does not make a role a member of the roles it creates on 15), and the
database was left at 0002, half-migrated. Each role set-up below runs `pgq migrate` from the wheel
(`make dist`) installed in a clean virtualenv, as a new user would, on a cluster of its own, so the
cluster-wide roles start absent:

- superuser: installs;
- database owner with CREATEROLE: installs (it makes pgq's roles and its own membership in
  pgq_owner);
- provider-style admin (CREATEROLE, a member with ADMIN OPTION of pgq's roles made for it, as
  managed services and PostgreSQL 16 do it): installs;
- database owner without CREATEROLE: stops before revision 0001 with a message naming what it
  lacks and the statements that fix it, nothing changed; once someone with CREATEROLE ran them
  (sql/roles.sql), the same owner installs.

Each install ends with an enqueue, a claim and a complete by login roles granted pgq's roles.
And an upgrade that fails in its last revision leaves the database at the revision it started
from, every revision in between rolled back.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from packaging_support import Venv, clean_env, with_extras
from psycopg.conninfo import make_conninfo

# A module-scoped cluster on a fixed directory and port: all of this module's tests on one xdist worker.
pytestmark = pytest.mark.xdist_group("install_roles_cluster")

ROOT = Path(__file__).resolve().parents[2]
PORT = "54373"


class PrivateCluster:
    """A throwaway cluster of this test's own (scripts/embedded-pg on another root and port)."""

    def __init__(self, root: Path) -> None:
        self.env = {**os.environ, "PGQ_PG_ROOT": str(root), "PGQ_PG_PORT": PORT}
        self.env.pop("DATABASE_URL", None)

    def _script(self, action: str) -> str:
        return subprocess.run([str(ROOT / "scripts" / "embedded-pg"), action], env=self.env, check=True,
                              capture_output=True, text=True).stdout.strip()

    def start(self) -> None:
        self._script("start")

    def stop(self) -> None:
        self._script("stop")

    def url(self, dbname: str = "postgres", user: str = "postgres") -> str:
        return make_conninfo(self._script("url"), dbname=dbname, user=user)

    def sql(self, statement: str, dbname: str = "postgres", user: str = "postgres") -> list[Any]:
        with psycopg.connect(self.url(dbname, user), autocommit=True) as conn:
            cur = conn.execute(statement)
            return cur.fetchall() if cur.description else []


@pytest.fixture(scope="module")
def wheel_venv(dist: Any, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """A clean virtualenv with the wheel and its cli extra: the `pgq` a new user runs."""
    base = tmp_path_factory.mktemp("roles-venv")
    home = base / "home"
    home.mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(base / "venv")], check=True, capture_output=True)
    venv = Venv(path=base / "venv", home=home)
    venv.pip_install(with_extras(dist.wheel, "cli", "binary"))
    return venv


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[PrivateCluster]:
    server = PrivateCluster(tmp_path / f"pg-{uuid.uuid4().hex[:6]}")
    server.start()
    yield server
    server.stop()


def migrate(venv: Venv, url: str, revision: str = "head") -> subprocess.CompletedProcess[str]:
    """`pgq migrate` of the installed wheel (the migrations it carries), outside the checkout."""
    return subprocess.run([str(venv.path / "bin" / "pgq"), "migrate", "--revision", revision], cwd=venv.home,
                          capture_output=True, text=True, env=clean_env(venv.path, DATABASE_URL=url), timeout=300)


def version(cluster: PrivateCluster, db: str) -> list[Any]:
    return cluster.sql("select version_num from q.alembic_version", db)


def head() -> str:
    return max(p.name.split("_", 1)[0] for p in (ROOT / "alembic" / "versions").glob("[0-9]*_*.py"))


def works(cluster: PrivateCluster, db: str, granter: str) -> None:
    """An enqueue by a producer login, a claim and complete by a worker login (granted by `granter`)."""
    tag = uuid.uuid4().hex[:6]
    cluster.sql(f"create role producer_{tag} login; create role worker_{tag} login")
    cluster.sql(f"grant pgq_producer to producer_{tag}; grant pgq_worker to worker_{tag}", db, granter)
    job = cluster.sql("select q.enqueue('mail', '{\"to\": 1}')", db, f"producer_{tag}")[0][0]
    (claimed,) = cluster.sql("select id, token from q.claim('mail', 1)", db, f"worker_{tag}")
    assert claimed[0] == job
    assert cluster.sql(f"select q.complete({job}, '{claimed[1]}')", db, f"worker_{tag}") == [(True,)]


def owned_database(cluster: PrivateCluster, owner: str, attributes: str) -> str:
    cluster.sql(f"create role {owner} login {attributes}")
    db = f"app_{owner}"
    cluster.sql(f"create database {db} owner {owner}")
    return db


@pytest.mark.slow
def test_a_superuser_installs(cluster: PrivateCluster, wheel_venv: Venv) -> None:
    cluster.sql("create database app")
    done = migrate(wheel_venv, cluster.url("app"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert version(cluster, "app") == [(head(),)]
    works(cluster, "app", "postgres")


@pytest.mark.slow
def test_a_database_owner_with_createrole_installs(cluster: PrivateCluster, wheel_venv: Venv) -> None:
    db = owned_database(cluster, "owner_cr", "createrole")
    done = migrate(wheel_venv, cluster.url(db, "owner_cr"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert version(cluster, db) == [(head(),)]
    assert cluster.sql("select pg_get_userbyid(nspowner) from pg_namespace where nspname = 'q_data'", db) \
        == [("pgq_owner",)], "pgq's objects belong to pgq_owner, not the installer"
    works(cluster, db, "owner_cr")


@pytest.mark.slow
def test_a_provider_style_admin_that_is_a_member_of_the_roles_it_made_installs(
    cluster: PrivateCluster, wheel_venv: Venv
) -> None:
    db = owned_database(cluster, "provider_admin", "createrole")
    for role in ("pgq_owner", "pgq_producer", "pgq_worker", "pgq_admin", "pgq_viewer"):
        cluster.sql(f"create role {role} nologin; grant {role} to provider_admin with admin option")
    done = migrate(wheel_venv, cluster.url(db, "provider_admin"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert version(cluster, db) == [(head(),)]
    works(cluster, db, "provider_admin")


@pytest.mark.slow
def test_an_owner_without_createrole_stops_before_0001_saying_what_to_run_then_installs(
    cluster: PrivateCluster, wheel_venv: Venv
) -> None:
    db = owned_database(cluster, "owner_plain", "")
    done = migrate(wheel_venv, cluster.url(db, "owner_plain"))
    assert done.returncode != 0
    message = done.stderr
    assert "pgq cannot be installed by role owner_plain" in message, message[-3000:]
    assert "CREATE ROLE pgq_owner NOLOGIN;" in message and 'GRANT pgq_owner TO "owner_plain";' in message
    assert version(cluster, db) == [], "nothing was migrated"
    assert cluster.sql("select count(*) from pg_proc where pronamespace = 'q'::regnamespace", db) == [(0,)]
    assert cluster.sql("select count(*) from pg_roles where rolname like 'pgq\\_%'") == [(0,)]

    # Someone with CREATEROLE runs sql/roles.sql once; then the same owner installs.
    roles = subprocess.run(["psql", cluster.url(), "-qX", "-v", "installer=owner_plain", "-f",
                            str(ROOT / "sql" / "roles.sql")], capture_output=True, text=True)
    assert roles.returncode == 0, roles.stderr
    done = migrate(wheel_venv, cluster.url(db, "owner_plain"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert version(cluster, db) == [(head(),)]
    works(cluster, db, "postgres")  # (granting pgq's roles to logins needs their admin: here the superuser)


@pytest.mark.slow
def test_an_upgrade_that_fails_in_its_last_revision_leaves_the_database_where_it_started(
    cluster: PrivateCluster, wheel_venv: Venv
) -> None:
    cluster.sql("create database app")
    url = cluster.url("app")
    assert migrate(wheel_venv, url, "0002").returncode == 0
    cluster.sql("select q.enqueue('kept', '1')", "app")
    cluster.sql("create schema q_data", "app")  # revision 0008 creates it: the upgrade fails there
    done = migrate(wheel_venv, url)
    assert done.returncode != 0 and 'schema "q_data" already exists' in done.stderr, done.stderr[-2000:]
    assert version(cluster, "app") == [("0002",)], "0003 to 0007 were rolled back with 0008"
    assert cluster.sql("select to_regclass('q.session'), to_regclass('q.schedule')", "app") == [(None, None)]
    assert cluster.sql("select count(*) from q.job", "app") == [(1,)]
    cluster.sql("drop schema q_data", "app")
    assert migrate(wheel_venv, url).returncode == 0
    assert version(cluster, "app") == [(head(),)]
    assert cluster.sql("select count(*) from q_data.job", "app") == [(1,)]


def test_the_fix_statements_name_only_what_is_missing() -> None:
    """(The statements the pre-flight prints are the ones sql/roles.sql runs.)"""
    sys.path.insert(0, str(ROOT / "alembic"))
    try:
        import pgq_sql
    finally:
        sys.path.pop(0)
    text = (ROOT / "sql" / "roles.sql").read_text()
    assert all(role in text for role in pgq_sql.ROLES)
    assert all(f"'{member}'" in text and f"'{role}'" in text for member, role in pgq_sql.MEMBERSHIPS)
