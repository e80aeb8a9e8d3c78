"""The Alembic history: one head, frozen snapshots intact, `alembic upgrade
head` builds exactly what sql/install.sql builds, every revision upgrades with
rows in place, up/down/up repeats cleanly, and concurrent upgrades apply once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from alembic.config import Config
from alembic.script import ScriptDirectory
from psycopg.types.json import Jsonb

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = ROOT / "alembic.ini"
ALEMBIC = Path(sys.executable).parent / "alembic"

# Every catalog fact of schemas q and q_data (from 0008, pgq's tables) that an
# upgrade could get wrong, one text line each; compared as sorted lists, so
# order does not matter but duplicates do. Alembic's own version table is left out.
FINGERPRINT = r"""
with ns as (
  select n.oid from pg_catalog.pg_namespace n where n.nspname in ('q', 'q_data')
), rel as (
  select c.oid, c.relnamespace::regnamespace::text || '.' || c.relname as relname, c.relkind
    from pg_catalog.pg_class c
   where c.relnamespace in (select oid from ns)
     and c.relname not in ('alembic_version', 'alembic_version_pkc')
), acl as (
  select o.oid, coalesce((select string_agg(a::text, ',' order by a::text) from unnest(o.acl) a), 'default') as acl
    from (select p.oid, p.proacl as acl from pg_catalog.pg_proc p where p.pronamespace = 'q'::regnamespace
          union all
          select c.oid, c.relacl from pg_catalog.pg_class c where c.relnamespace in (select oid from ns)
          union all
          select t.oid, t.typacl from pg_catalog.pg_type t where t.typnamespace in (select oid from ns)) o
)
select 'schema ' || n.nspname || ' owner=' || pg_catalog.pg_get_userbyid(n.nspowner)
       || ' acl=' || coalesce((select string_agg(a::text, ',' order by a::text) from unnest(n.nspacl) a), 'default')
       || ' comment=' || coalesce(pg_catalog.obj_description(n.oid, 'pg_namespace'), '')
  from pg_catalog.pg_namespace n where n.nspname in ('q', 'q_data')
union all
select 'function ' || p.oid::regprocedure::text
       || ' owner=' || pg_catalog.pg_get_userbyid(p.proowner)
       || ' acl=' || acl.acl
       || ' comment=' || coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '')
       || E'\n' || pg_catalog.pg_get_functiondef(p.oid)
  from pg_catalog.pg_proc p join acl on acl.oid = p.oid
 where p.pronamespace = 'q'::regnamespace
union all
select 'relation ' || rel.relname || ' kind=' || rel.relkind::text
       || ' persistence=' || c.relpersistence::text || ' replident=' || c.relreplident::text
       || ' options=' || coalesce(array_to_string(array(select o from unnest(c.reloptions) o order by o), ','), '')
       || ' owner=' || pg_catalog.pg_get_userbyid(c.relowner)
       || ' acl=' || acl.acl
       || ' comment=' || coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), '')
  from rel join pg_catalog.pg_class c on c.oid = rel.oid join acl on acl.oid = c.oid
union all
select 'column ' || rel.relname || '.' || a.attname
       -- The logical position: a column dropped by a downgrade leaves a hole in attnum.
       || ' #' || (select count(*) from pg_catalog.pg_attribute b
                    where b.attrelid = a.attrelid and b.attnum > 0 and not b.attisdropped and b.attnum <= a.attnum)
       || ' type=' || pg_catalog.format_type(a.atttypid, a.atttypmod)
       || ' notnull=' || a.attnotnull::text
       || ' default=' || coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '')
       || ' identity=' || a.attidentity::text || ' generated=' || a.attgenerated::text
       || ' statistics=' || a.attstattarget::text
       || ' collation=' || coalesce(nullif(a.attcollation, 0)::regcollation::text, '')
       || ' comment=' || coalesce(pg_catalog.col_description(rel.oid, a.attnum), '')
  from rel
  join pg_catalog.pg_attribute a on a.attrelid = rel.oid and a.attnum > 0 and not a.attisdropped
  left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
 where rel.relkind in ('r', 'p', 'c', 'v', 'm')
union all
select 'index ' || pg_catalog.pg_get_indexdef(i.indexrelid)
  from pg_catalog.pg_index i join rel on rel.oid = i.indrelid
union all
select 'constraint ' || coalesce(rel.relname, con.contypid::regtype::text) || '.' || con.conname
       || ' ' || pg_catalog.pg_get_constraintdef(con.oid)
       || ' deferrable=' || con.condeferrable::text || ' deferred=' || con.condeferred::text
       || ' comment=' || coalesce(pg_catalog.obj_description(con.oid, 'pg_constraint'), '')
  from pg_catalog.pg_constraint con left join rel on rel.oid = con.conrelid
 where con.connamespace in (select oid from ns)
   and (rel.oid is not null or con.contypid <> 0)
union all
select 'trigger ' || pg_catalog.pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text
       || ' comment=' || coalesce(pg_catalog.obj_description(t.oid, 'pg_trigger'), '')
  from pg_catalog.pg_trigger t join rel on rel.oid = t.tgrelid
 where not t.tgisinternal
union all
select 'type ' || t.typnamespace::regnamespace::text || '.' || t.typname
       || ' kind=' || t.typtype::text || ' category=' || t.typcategory::text
       || ' owner=' || pg_catalog.pg_get_userbyid(t.typowner) || ' acl=' || acl.acl
       || ' comment=' || coalesce(pg_catalog.obj_description(t.oid, 'pg_type'), '')
       || ' enum=' || coalesce((select string_agg(e.enumlabel, ',' order by e.enumsortorder)
                                  from pg_catalog.pg_enum e where e.enumtypid = t.oid), '')
  from pg_catalog.pg_type t join acl on acl.oid = t.oid
 where t.typnamespace in (select oid from ns)
   and t.typname not in ('alembic_version', '_alembic_version')
union all
select 'sequence ' || s.schemaname || '.' || s.sequencename
       || ' type=' || s.data_type::text || ' start=' || s.start_value::text
       || ' min=' || s.min_value::text || ' max=' || s.max_value::text || ' increment=' || s.increment_by::text
       || ' cycle=' || s.cycle::text || ' cache=' || s.cache_size::text
  from pg_catalog.pg_sequences s where s.schemaname in ('q', 'q_data')
union all
select 'policy ' || pol.polname || ' on ' || rel.relname
       || ' ' || coalesce(pg_catalog.pg_get_expr(pol.polqual, pol.polrelid), '')
  from pg_catalog.pg_policy pol join rel on rel.oid = pol.polrelid
union all
select 'rule ' || r.rulename || ' ' || pg_catalog.pg_get_ruledef(r.oid)
  from pg_catalog.pg_rewrite r join rel on rel.oid = r.ev_class
"""

# What is left in q after a downgrade to base: Alembic's table and its parts.
LEFT_IN_SCHEMA = """
select 'relation ' || c.relname from pg_catalog.pg_class c where c.relnamespace = 'q'::regnamespace
union all
select 'function ' || p.oid::regprocedure::text from pg_catalog.pg_proc p where p.pronamespace = 'q'::regnamespace
union all
select 'type ' || t.typname from pg_catalog.pg_type t where t.typnamespace = 'q'::regnamespace
union all
select 'schema ' || n.nspname from pg_catalog.pg_namespace n where n.nspname = 'q_data'
"""
ONLY_ALEMBIC_VERSION = [
    "relation alembic_version",
    "relation alembic_version_pkc",
    "type _alembic_version",
    "type alembic_version",
]


def script_directory() -> ScriptDirectory:
    return ScriptDirectory.from_config(Config(str(ALEMBIC_INI)))


def alembic_command(*args: str) -> list[str]:
    return [str(ALEMBIC), "-c", str(ALEMBIC_INI), *args]


def alembic_env(url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": url}


def alembic(url: str, *args: str) -> None:
    run = subprocess.run(alembic_command(*args), env=alembic_env(url), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"alembic {' '.join(args)} exited {run.returncode}:\n{run.stderr}"


def fingerprint(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return sorted(r[0] for r in conn.execute(FINGERPRINT).fetchall())


def left_in_schema(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return sorted(r[0] for r in conn.execute(LEFT_IN_SCHEMA).fetchall())


def versions(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("select version_num from q.alembic_version").fetchall()]


def job_table(conn: psycopg.Connection[Any]) -> str:
    """pgq's job table at the database's revision: q.job until 0007, q_data.job from 0008."""
    row = conn.execute("select coalesce(to_regclass('q_data.job'), to_regclass('q.job'))::text").fetchone()
    assert row is not None and row[0] is not None
    return str(row[0])


def assert_same_catalog(install_sql: list[str], alembic_head: list[str]) -> None:
    only_install = sorted(set(install_sql) - set(alembic_head))
    only_alembic = sorted(set(alembic_head) - set(install_sql))
    assert (only_install, only_alembic) == ([], []), "catalogs differ (left: install.sql only, right: alembic only)"
    assert install_sql == alembic_head  # also the same number of each


def test_the_alembic_history_has_exactly_one_head() -> None:
    heads = script_directory().get_heads()
    assert len(heads) == 1, heads


def test_frozen_sql_snapshots_match_their_recorded_checksums() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "verify_frozen.py")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr


def test_alembic_upgrade_head_builds_the_same_catalog_as_install_sql(
    db_url: str, new_database: Callable[[], str]
) -> None:
    install_sql = fingerprint(db_url)  # db_url is a copy of a database made with sql/install.sql
    assert len(install_sql) > 50, "the fingerprint sees schema q"
    migrated = new_database()
    alembic(migrated, "upgrade", "head")

    assert_same_catalog(install_sql, fingerprint(migrated))
    assert versions(migrated) == [script_directory().get_current_head()]


def test_every_revision_upgrades_to_head_with_its_jobs_in_place(new_database: Callable[[], str]) -> None:
    head = script_directory().get_current_head()
    history = [r.revision for r in reversed(list(script_directory().walk_revisions()))]
    assert history and history[-1] == head
    for revision in history:
        url = new_database()
        alembic(url, "upgrade", revision)
        with psycopg.connect(url, autocommit=True) as conn:
            # The SQL API every revision has had: enqueue, claim, complete.
            ids = [r[0] for r in conn.execute("select q.enqueue_many('upgrade', %s)", (Jsonb([1, 2, 3, 4, 5]),))]
            conn.execute("select q.enqueue('upgrade', '6', run_at => now() + interval '1 hour')")
            held = conn.execute("select id, token from q.claim('upgrade', 2, owner => 0)").fetchall()
            before = conn.execute(f"select id, state, token from {job_table(conn)} order by id").fetchall()

        alembic(url, "upgrade", "head")

        with psycopg.connect(url, autocommit=True) as conn:
            assert versions(url) == [head], revision
            assert conn.execute("select id, state, token from q_data.job order by id").fetchall() == before, revision
            assert [conn.execute("select q.complete(%s, %s)", h).fetchone()[0] for h in held] == [True, True]
            rest = conn.execute("select id, token from q.claim('upgrade', 10)").fetchall()
            assert sorted(r[0] for r in rest) == sorted(set(ids) - {h[0] for h in held}), revision
            done = conn.execute("select * from q.complete_many(%s, %s)", ([r[0] for r in rest], [r[1] for r in rest]))
            assert len(done.fetchall()) == 3
            assert conn.execute("select count(*) from q_data.job where state = 's'").fetchone()[0] == 1


def test_upgrade_downgrade_upgrade_twice_leaves_the_install_sql_catalog(
    db_url: str, new_database: Callable[[], str]
) -> None:
    install_sql = fingerprint(db_url)
    url = new_database()
    for round_ in (1, 2):
        alembic(url, "upgrade", "head")
        assert_same_catalog(install_sql, fingerprint(url))
        alembic(url, "downgrade", "base")
        assert left_in_schema(url) == ONLY_ALEMBIC_VERSION, f"round {round_}"
        assert versions(url) == []
    alembic(url, "upgrade", "head")
    assert_same_catalog(install_sql, fingerprint(url))


def test_five_concurrent_alembic_upgrades_all_succeed_and_apply_once(
    db_url: str, new_database: Callable[[], str]
) -> None:
    install_sql = fingerprint(db_url)
    url = new_database()
    procs = [
        subprocess.Popen(
            alembic_command("upgrade", "head"), env=alembic_env(url), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )
        for _ in range(5)
    ]
    outcomes: list[tuple[int, str]] = []
    for proc in procs:
        _, stderr = proc.communicate(timeout=120)
        outcomes.append((proc.returncode, stderr))

    assert [rc for rc, _ in outcomes] == [0] * 5, "\n".join(err for rc, err in outcomes if rc)
    revisions = len(list(script_directory().walk_revisions()))
    applied = sum(err.count("Running upgrade ") for _, err in outcomes)
    assert applied == revisions, "each revision ran once; the later processes found the database at head"
    assert versions(url) == [script_directory().get_current_head()]
    assert_same_catalog(install_sql, fingerprint(url))


def revision_pairs() -> list[tuple[str, str | None]]:
    """(revision, its down_revision) for every revision, oldest first."""
    return [(r.revision, r.down_revision) for r in reversed(list(script_directory().walk_revisions()))]  # type: ignore[misc]


def test_every_single_step_downgrade_restores_the_catalog_of_the_revision_before(
    new_database: Callable[[], str]
) -> None:
    pairs = revision_pairs()
    assert len(pairs) >= 3
    for revision, previous in pairs:
        stepped = new_database()
        alembic(stepped, "upgrade", revision)
        alembic(stepped, "downgrade", "-1")
        if previous is None:
            assert left_in_schema(stepped) == ONLY_ALEMBIC_VERSION, revision
            continue
        fresh = new_database()
        alembic(fresh, "upgrade", previous)
        assert versions(stepped) == [previous]
        only_fresh = sorted(set(fingerprint(fresh)) - set(fingerprint(stepped)))
        only_stepped = sorted(set(fingerprint(stepped)) - set(fingerprint(fresh)))
        assert (only_fresh, only_stepped) == ([], []), f"upgrade {revision}; downgrade -1 != upgrade {previous}"


def wait_backend_gone(conn: psycopg.Connection[Any], pid: int) -> None:
    for _ in range(200):
        if not conn.execute("select count(*) from pg_stat_activity where pid = %s", (pid,)).fetchone()[0]:
            return
        time.sleep(0.05)
    raise AssertionError(f"backend {pid} did not end")


def test_upgrade_0002_to_0003_keeps_running_claims_live_and_reaps_them_when_their_session_dies(
    new_database: Callable[[], str]
) -> None:
    url = new_database()
    alembic(url, "upgrade", "0002")
    worker = psycopg.connect(url, autocommit=True)  # stays connected through the upgrade
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.enqueue_many('up', %s)", (Jsonb(list(range(6))),))
        conn.execute("select q.enqueue('up', '7', run_at => now() + interval '1 hour')")
        # 0002: the default owner is the claiming connection's advisory-lock key.
        key = worker.execute("select q.session_key()").fetchone()[0]
        held = worker.execute("select id, token from q.claim('up', 2)").fetchall()
        lease_only = conn.execute("select id, token from q.claim('up', 1, owner => 0)").fetchall()
        before = conn.execute("select id, state, token, owner from q.job order by id").fetchall()
    assert {r[3] for r in before if r[1] == "r"} == {key, None}

    alembic(url, "upgrade", "0003")

    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("select id, state, token, owner from q.job order by id").fetchall() == before
        pid = worker.execute("select pg_backend_pid()").fetchone()[0]
        assert conn.execute("select pid from q.session where key = %s", (key,)).fetchone() == (pid,)
        assert conn.execute("select q.reap()").fetchone()[0] == 0, "a live 0002 claim is still live"
        assert worker.execute("select q.session_key()").fetchone()[0] == key, "the session keeps its key"
        assert worker.execute("select q.complete(%s, %s)", held[0]).fetchone()[0] is True
        assert conn.execute("select q.complete(%s, %s)", lease_only[0]).fetchone()[0] is True

        worker.close()
        wait_backend_gone(conn, pid)
        assert conn.execute("select q.reap()").fetchone()[0] == 1, "the dead session's claim comes back at once"
        assert conn.execute("select state, crashes from q.job where id = %s", (held[1][0],)).fetchone() == ("w", 1)
        rest = conn.execute("select id, token from q.claim('up', 10)").fetchall()
        assert len(rest) == 4
        assert len(conn.execute("select * from q.complete_many(%s, %s)",
                                ([r[0] for r in rest], [r[1] for r in rest])).fetchall()) == 4
        assert conn.execute("select count(*) from q.job where state = 's'").fetchone()[0] == 1


def test_downgrade_0003_to_0002_and_up_again_keeps_jobs_and_claims_completable(
    db_url: str, new_database: Callable[[], str]
) -> None:
    install_sql = fingerprint(db_url)
    url = new_database()
    alembic(url, "upgrade", "0003")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.enqueue_many('down', %s)", (Jsonb(list(range(4))),))
        key = conn.execute("select q.session_key()").fetchone()[0]
        held = conn.execute("select id, token from q.claim('down', 2, owner => %s)", (key,)).fetchall()

        alembic(url, "downgrade", "0002")
        # 0002 would read a key without its advisory lock as a dead session: claims are lease-only now.
        assert conn.execute("select count(*) from q.job where state = 'r' and owner is null").fetchone()[0] == 2
        assert conn.execute("select q.reap()").fetchone()[0] == 0
        assert conn.execute("select q.complete(%s, %s)", held[0]).fetchone()[0] is True

        alembic(url, "upgrade", "head")  # (0003 and the revisions after it: the catalog below is head's)
        assert conn.execute("select q.complete(%s, %s)", held[1]).fetchone()[0] is True
        assert len(conn.execute("select * from q.claim('down', 10)").fetchall()) == 2
    alembic(url, "upgrade", "head")  # the revisions after 0003, if any
    assert_same_catalog(install_sql, fingerprint(url))


def test_upgrade_0007_to_0008_moves_live_claims_held_jobs_slots_and_schedules(new_database: Callable[[], str]) -> None:
    """0008 moves every table to q_data under live work: nothing is lost, claims stay live and
    completable, held jobs stay held behind their key's slot, schedules keep their next slot; and
    a downgrade moves it all back."""
    url = new_database()
    alembic(url, "upgrade", "0007")
    worker = psycopg.connect(url, autocommit=True)  # stays connected through the upgrade
    snapshot = ("select id, state::text, token, owner, concurrency_key from {t}.job order by id",
                "select count(*), count(job_id) from {t}.key_slot",
                "select name, next_fire_at from {t}.schedule order by name")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select q.configure('lim', key_concurrency => 1)")
        conn.execute("select q.enqueue_many('lim', %s, concurrency_key => 'a')", (Jsonb([1, 2, 3]),))
        conn.execute("select q.enqueue_many('up', %s)", (Jsonb(list(range(6))),))
        conn.execute("select q.schedule('tick', '*/5 * * * *', 'up')")
        key = worker.execute("select q.session_key()").fetchone()[0]
        held = worker.execute("select id, token from q.claim('up', 2, owner => %s)", (key,)).fetchall()
        first = worker.execute("select id, token from q.claim('lim', 5, owner => %s)", (key,)).fetchall()
        assert len(first) == 1, "one job of key a runs, two are held"
        before = [conn.execute(sql.format(t="q")).fetchall() for sql in snapshot]
    assert [r[1] for r in before[0]].count("h") == 2

    alembic(url, "upgrade", "0008")

    with psycopg.connect(url, autocommit=True) as conn:
        assert [conn.execute(sql.format(t="q_data")).fetchall() for sql in snapshot] == before
        assert conn.execute("select q.reap()").fetchone()[0] == 0, "the live session's claims stay live"
        assert [worker.execute("select q.complete(%s, %s)", h).fetchone()[0] for h in held] == [True, True]
        assert worker.execute("select q.complete(%s, %s)", first[0]).fetchone()[0] is True
        nxt = conn.execute("select id, token from q.claim('lim', 5)").fetchall()
        assert len(nxt) == 1, "the next job of key a is admitted when the first finishes"
        assert conn.execute("select name from q.schedules()").fetchall() == [("tick",)]

        alembic(url, "downgrade", "0007")
        assert conn.execute("select count(*) from q.job").fetchone()[0] == len(before[0]) - 3
        assert conn.execute("select q.complete(%s, %s)", nxt[0]).fetchone()[0] is True
        assert conn.execute("select to_regnamespace('q_data')").fetchone()[0] is None
    worker.close()
