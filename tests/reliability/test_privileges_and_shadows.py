"""Suite 8: privileges. has_function_privilege for every function in q and
each role (and PUBLIC) equals the README's matrix; no role but the owner
touches a table; every SECURITY DEFINER function pins a search_path ending in
pg_temp; a session that plants public/pg_temp shadows of the names pgq uses
gets the same results as a clean one and runs none of them; and a worker
cannot finish, heartbeat, release or cancel another worker's job."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from psycopg.types.json import Jsonb

from .figures import record
from .shadows import CANARY, plant

README = Path(__file__).resolve().parents[2] / "docs" / "manual" / "sql-api.md"  # its Roles table
ROLES = ["pgq_producer", "pgq_worker", "pgq_monitor", "pgq_viewer", "pgq_admin", "public"]
TABLE_PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"]


def documented_matrix() -> dict[str, set[str]]:
    """role -> the q functions the README's Roles table says it may call."""
    section = README.read_text().split("## Roles", 1)[1].split("\n\n", 2)[1]
    may: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        names: set[str] = set()
        for name in re.findall(r"`([a-z_]+(?:\(_many\))?)`", cells[1]):
            names |= {name[:-7], name[:-7] + "_many"} if name.endswith("(_many)") else {name}
        may[cells[0].strip("`")] = names
    # "what pgq_monitor may (a member of it)" (revision 0008)
    may["pgq_viewer"] |= may.get("pgq_monitor", set())
    # "all of the above (member of the three)"
    may["pgq_admin"] |= may["pgq_producer"] | may["pgq_worker"] | may["pgq_viewer"]
    may.setdefault("PUBLIC", set())
    return may


def test_execute_privileges_on_every_function_in_q_equal_the_readme_matrix(conn: psycopg.Connection[Any]) -> None:
    matrix = documented_matrix()
    assert matrix["PUBLIC"] == set() and "enqueue" in matrix["pgq_producer"] and "claim" in matrix["pgq_worker"]
    rows = conn.execute(
        "select p.proname, p.oid::regprocedure::text, r.role, has_function_privilege(r.role, p.oid, 'EXECUTE')"
        "  from pg_proc p, unnest(%s::text[]) r(role) where p.pronamespace = 'q'::regnamespace",
        (ROLES,),
    ).fetchall()
    wrong = [
        f"{role} {'may' if allowed else 'may not'} execute {signature}"
        for name, signature, role, allowed in rows
        if allowed != (name in matrix["PUBLIC" if role == "public" else role])
    ]
    assert wrong == []
    public_functions = {name for name, _, role, allowed in rows if allowed}
    assert public_functions == set().union(*matrix.values()), "the README names a function q does not have"
    record("8", "function privileges", functions=len({r[1] for r in rows}), checks=len(rows), mismatches=0)


def test_no_role_but_the_owner_can_touch_a_table_sequence_or_column_or_create_in_q(
    conn: psycopg.Connection[Any],
) -> None:
    rows = conn.execute(
        """
        select c.oid::regclass::text, r.role, p.priv
          from pg_class c, unnest(%s::text[]) r(role), unnest(%s::text[]) p(priv)
         where c.relnamespace = 'q'::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
           and (has_table_privilege(r.role, c.oid, p.priv)
                or has_any_column_privilege(r.role, c.oid, 'SELECT')
                or has_any_column_privilege(r.role, c.oid, 'UPDATE')
                or has_any_column_privilege(r.role, c.oid, 'INSERT'))
        union all
        select c.oid::regclass::text, r.role, p.priv
          from pg_class c, unnest(%s::text[]) r(role), unnest(array['USAGE', 'SELECT', 'UPDATE']) p(priv)
         where c.relnamespace = 'q'::regnamespace and c.relkind = 'S'
           and has_sequence_privilege(r.role, c.oid, p.priv)
        union all
        select 'schema q', r.role, 'CREATE' from unnest(%s::text[]) r(role)
         where has_schema_privilege(r.role, 'q', 'CREATE')
        """,
        (ROLES, TABLE_PRIVILEGES, ROLES, ROLES),
    ).fetchall()
    assert rows == []
    assert conn.execute("select count(*) from pg_class where relnamespace = 'q'::regnamespace").fetchone()[0] > 5


def test_every_security_definer_function_pins_a_search_path_that_ends_in_pg_temp(
    conn: psycopg.Connection[Any],
) -> None:
    rows = conn.execute(
        "select p.oid::regprocedure::text, p.prosecdef,"
        "       (select split_part(c, '=', 2) from unnest(p.proconfig) c where c like 'search_path=%%')"
        "  from pg_proc p where p.pronamespace = 'q'::regnamespace"
    ).fetchall()
    definers = [r for r in rows if r[1]]
    assert len(definers) >= 19, "the public functions are SECURITY DEFINER"
    for signature, _, path in rows:  # every function pins it; the definers are the ones that matter
        assert path is not None, f"{signature} has no pinned search_path"
        parts = [p.strip() for p in path.split(",")]
        assert parts[-1] == "pg_temp" and parts[0] == "pg_catalog", f"{signature}: search_path={path}"
    record("8", "search_path", security_definer_functions=len(definers), pinned=len(rows))


# -- shadows -----------------------------------------------------------------------------------------------------


@pytest.fixture
def login_role(db_url: str, conn: psycopg.Connection[Any]) -> Iterator[Callable[..., str]]:
    """Make login roles (cluster-wide, unique names) with the given memberships; URLs to connect as them."""
    made: list[str] = []

    def make(*member_of: str, create_on_public: bool = False) -> str:
        name = f"rel_{uuid.uuid4().hex[:10]}"
        conn.execute(f"create role {name} login")
        made.append(name)
        for group in member_of:
            conn.execute(f"grant {group} to {name}")
        if create_on_public:
            conn.execute(f"grant create on schema public to {name}")
        return make_conninfo(db_url, user=name)

    yield make
    for name in made:
        conn.execute(f"drop owned by {name}")
        conn.execute(f"drop role {name}")


@pytest.fixture
def clean_db_url(pgq_template: str, db_url: str) -> Iterator[str]:
    """A second fresh pgq database, without shadows: the reference run."""
    name = f"pgq_clean_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(make_conninfo(db_url, dbname="postgres"), autocommit=True) as admin:
        admin.execute(f'create database "{name}" template "{pgq_template}"')
        yield make_conninfo(db_url, dbname=name)
        admin.execute(f'drop database "{name}" with (force)')


UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME_RE = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d(:\d\d)?)?|datetime\.\w+\([^)]*\)\)?")


def normalized(log: list[tuple[str, Any]]) -> list[str]:
    """Results with tokens numbered by first appearance and clock values dropped."""
    tokens: dict[str, str] = {}

    def token(m: re.Match[str]) -> str:
        return tokens.setdefault(m.group(0), f"token#{len(tokens)}")

    out = []
    for step, value in log:
        text = repr(value)
        text = re.sub(r"UUID\('([0-9a-f-]{36})'\)", r"\1", text)
        out.append(f"{step}: " + TIME_RE.sub("<time>", UUID_RE.sub(token, text)))
    return out


def workload(conn: psycopg.Connection[Any], listener: psycopg.Connection[Any]) -> list[tuple[str, Any]]:
    """Every public pgq call, in a fixed order, with the results and the visible state after each group."""
    log: list[tuple[str, Any]] = []

    def step(name: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        rows = conn.execute(query, params).fetchall()
        log.append((name, rows))
        return rows

    step("enqueue", "select q.enqueue('s', %s, priority => 3)", (Jsonb({"a": [1, "x'y"]}),))
    step("dedup", "select q.enqueue('s', '{}', dedup_key => 'k')")
    step("dedup again", "select q.enqueue('s', '{\"other\": 1}', dedup_key => 'k')")
    step("enqueue_many", "select * from q.enqueue_many('s', %s)", (Jsonb([{"n": i} for i in range(5)]),))
    # (The workload's own SQL uses no unqualified function or operator: in the
    # shadowed session those would run the shadows, and they are not pgq's.)
    step("scheduled", "select q.enqueue('s', '{}', run_at => %s)", (datetime.now(timezone.utc) + timedelta(hours=1),))
    # Failed jobs back off for minutes, not 0.5-1 s: whether one is due by the stats step must not
    # depend on how fast the session ran (it made this test flaky on busy and quiet machines alike).
    step("configure", "select q.configure('s', max_attempts => 2, keep_completed => true, backoff_base => '1 hour')")
    jobs = step("claim", "select id, queue, payload, attempt, crashes, priority, token from q.claim('s', 4)")
    (a, ta), (b, tb), (c, tc), (d, td) = [(r[0], r[6]) for r in jobs]
    step("heartbeat", "select q.heartbeat(%s, %s)", (a, ta))
    step("heartbeat_many", "select * from q.heartbeat_many(%s, %s)", ([a, b], [ta, tb]))
    step("complete", "select q.complete(%s, %s)", (a, ta))
    step("complete again", "select q.complete(%s, %s)", (a, ta))
    step("fail", "select q.fail(%s, %s, 'boom')", (b, tb))
    step("fail dead", "select q.fail(%s, %s, 'bad', retryable => false)", (c, tc))
    step("release", "select q.release(%s, %s)", (d, td))
    step("cancel", "select q.cancel(%s)", (b,))
    step("retry", "select q.retry(%s)", (c,))
    step("pause", "select q.pause('s')")
    step("claim paused", "select id from q.claim('s', 10)")
    step("resume", "select q.resume('s')")
    more = step("claim more", "select id, token, attempt from q.claim('s', 10, interval '1 millisecond', 0)")
    step("complete_many", "select * from q.complete_many(%s, %s)", ([r[0] for r in more[:2]], [r[1] for r in more[:2]]))
    step("fail_many", "select * from q.fail_many(%s, %s, %s)",
         ([r[0] for r in more[2:4]], [r[1] for r in more[2:4]], ["e1", "e2"]))
    step("release_many", "select * from q.release_many(%s, %s)", ([r[0] for r in more[4:5]], [r[1] for r in more[4:5]]))
    conn.execute("select pg_sleep(0.01)")
    step("reap", "select q.reap()")
    # Schedules, on the scheduler's test clock (SET, not set_config: no unqualified function here),
    # which this database allows (off by default).
    conn.execute("select q.allow_test_clock(true)")
    conn.execute("set pgq.schedule_now = '2026-12-01 10:00:00+00'")
    step("schedule", "select name, queue, cron, every, timezone, catch_up, paused, next_fire_at, payload"
                     " from q.schedule('nightly', '30 2 * * mon-fri', 's', %s, timezone => 'Europe/Berlin')",
         (Jsonb({"k": "x'y"}),))
    step("schedule every", "select name, every, next_fire_at from q.schedule('tick', queue => 's',"
                           " every => interval '30 seconds', catch_up => 'all')")
    step("one schedule", "select name, cron from q.schedules('nightly')")
    conn.execute("set pgq.schedule_now = '2026-12-01 10:01:00.5+00'")
    step("reap fires", "select q.reap()")
    step("schedules", "select name, paused, next_fire_at, last_slot, last_job_id is not null from q.schedules()")
    step("pause_schedule", "select q.pause_schedule('tick')")
    step("resume_schedule", "select q.resume_schedule('tick')")
    step("unschedule", "select q.unschedule('nightly')")
    conn.execute("reset pgq.schedule_now")
    log.append(("session_key", conn.execute("select q.session_key()").fetchone()[0] > 0))
    step("stats", "select queue, paused, waiting, scheduled, running, dead from q.stats()")
    log.append(("notifications", sorted(n.payload for n in listener.notifies(timeout=0.5, stop_after=100))))
    return log


def state(url: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "select 'job', id, state::text, attempt, crashes, priority, payload::text, dedup_key, token is not null,"
            "       (select jsonb_agg(e - 'at') from jsonb_array_elements(errors) e)::text from q_data.job"
            " union all select 'history', id, state, attempt, crashes, priority, payload::text, dedup_key, false,"
            "       (select jsonb_agg(e - 'at') from jsonb_array_elements(errors) e)::text from q_data.job_history"
            " union all select 'queue', id, name, max_attempts, max_crashes, null, paused::text, keep_completed::text,"
            "       false, null from q_data.queue"
            " order by 1, 2"
        ).fetchall()


def run_workload(url: str) -> list[str]:
    with psycopg.connect(url, autocommit=True) as listener, psycopg.connect(url, autocommit=True) as conn:
        listener.execute("listen pgq")
        return normalized(workload(conn, listener))


def test_a_session_that_plants_public_and_pg_temp_shadows_gets_identical_results_and_runs_none(
    conn: psycopg.Connection[Any], clean_db_url: str, login_role: Callable[..., str]
) -> None:
    conn.execute(CANARY)
    attacker = login_role("pgq_admin", create_on_public=True)
    with psycopg.connect(attacker, autocommit=True) as session:
        session.execute("set search_path = pg_temp, public, pg_catalog")
        planted = plant(session)
        # The shadows are live: this session's own unqualified calls run them.
        session.execute("select now(), gen_random_uuid(), 1 = 1")
        hits = session.execute("select count(*) from public.canary").fetchone()[0]
        assert hits >= 3, "the shadows do not shadow anything: the test would prove nothing"
        conn.execute("truncate public.canary")

        listener = psycopg.connect(attacker, autocommit=True)
        listener.execute("set search_path = pg_temp, public, pg_catalog")
        listener.execute("listen pgq")
        shadowed = normalized(workload(session, listener))
        listener.close()
        canary = conn.execute("select what from public.canary").fetchall()

    reference = run_workload(clean_db_url)
    assert canary == [], f"pgq ran planted objects: {canary[:10]}"
    assert shadowed == reference
    assert state(conn.info.dsn) == state(clean_db_url)
    record("8", "shadowed session", shadows_planted=planted, calls=len(reference), canary_rows=len(canary),
           differences=0)


def test_a_worker_cannot_complete_fail_heartbeat_release_or_cancel_another_workers_job(
    conn: psycopg.Connection[Any], login_role: Callable[..., str]
) -> None:
    owner_url, other_url = login_role("pgq_worker"), login_role("pgq_worker")
    conn.execute("select q.enqueue('mine', '{}')")
    with psycopg.connect(owner_url, autocommit=True) as owner, psycopg.connect(other_url, autocommit=True) as other:
        job_id, token = owner.execute("select id, token from q.claim('mine', 1)").fetchone()
        before = conn.execute("select xmin::text, j::text from q_data.job j").fetchall()
        guess = uuid.uuid4()

        assert other.execute("select q.complete(%s, %s)", (job_id, guess)).fetchone() == (False,)
        assert other.execute("select q.fail(%s, %s, 'x')", (job_id, guess)).fetchone() == ("lost",)
        assert other.execute("select q.heartbeat(%s, %s)", (job_id, guess)).fetchone() == ("lost",)
        assert other.execute("select q.release(%s, %s)", (job_id, guess)).fetchone() == (False,)
        assert other.execute("select * from q.complete_many(%s, %s)", ([job_id], [guess])).fetchall() == []
        denied = []
        for query in (f"select q.cancel({job_id})", "select token from q_data.job", "select * from q.stats()",
                      "update q_data.job set token = null", "delete from q_data.job", f"select q.retry({job_id})",
                      "select q.pause('mine')", "select * from q_data.job_history"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                other.execute(query)
            denied.append(query)
        assert conn.execute("select xmin::text, j::text from q_data.job j").fetchall() == before, "the row was written"
        assert owner.execute("select q.complete(%s, %s)", (job_id, token)).fetchone() == (True,)
    record("8", "cross-worker fencing", refused_calls=5, denied_statements=len(denied))
