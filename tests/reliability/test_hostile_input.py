"""Suite 7: hostile input. 500 generated queue names, dedup keys,
priorities and payloads (see hostile.py): each is either stored and comes
back exactly through q.claim and the Python client, or is rejected with the
documented SQLSTATE and writes nothing; and nothing else happens (a canary
table, which the injection fragments and an event trigger on DDL would
write to, stays empty)."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pgq_client import _queries as sql
from pgq_client import claim, complete
from psycopg.types.json import Jsonb

from .figures import record
from .hostile import (
    CLIENT_REFUSES,
    DEDUP_KEYS,
    MAX_ATTEMPTS,
    PAYLOADS,
    PRIORITIES,
    QUEUE_NAMES,
    STORED,
    Huge,
    expected,
    payload_text,
    payload_value,
    same_json,
)

# 500 in `make test` (2,000 took 224 s of a loaded 2-core machine, the slowest test of the suite);
# `make soak` runs 10,000.
EXAMPLES = int(os.environ.get("PGQ_HOSTILE_EXAMPLES", "500"))
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

CANARY = """
create table public.canary (what text);
create function public.tg_canary() returns event_trigger language plpgsql as $$
begin
  insert into public.canary values ('ddl: ' || tg_tag);
end
$$;
create event trigger canary_ddl on ddl_command_start execute function public.tg_canary();
"""


def raw(text: str) -> Jsonb:
    """A jsonb parameter whose JSON text we wrote ourselves (json.dumps would refuse deep or NaN-free input)."""
    return Jsonb(text, dumps=lambda s: s)


def counts(conn: psycopg.Connection[Any]) -> tuple[int, int, int, int]:
    return conn.execute(
        "select (select count(*) from q_data.job), (select count(*) from q_data.queue),"
        " (select count(*) from q_data.job_history), (select count(*) from public.canary)"
    ).fetchone()


def test_generated_hostile_inputs_are_stored_exactly_or_rejected_with_the_documented_sqlstate(
    conn: psycopg.Connection[Any],
) -> None:
    conn.execute(CANARY)
    seen: Counter[str] = Counter()

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(QUEUE_NAMES, PAYLOADS, DEDUP_KEYS, PRIORITIES, MAX_ATTEMPTS, st.booleans())
    def one(queue: str | None, payload: Any, dedup_key: str | None, priority: int, max_attempts: int | None,
            ascii_only: bool) -> None:
        conn.execute("delete from q_data.job")  # what a failed example (while shrinking) left behind
        text = payload_text(payload, ascii_only)
        size = None
        if isinstance(payload, Huge):
            size = conn.execute("select pg_column_size(%s::jsonb)", (text,)).fetchone()[0]
        allowed = expected(queue, payload, dedup_key, priority, max_attempts, size)
        before = counts(conn)
        try:
            params = (queue, raw(text), None, priority, max_attempts, dedup_key)
            row = conn.execute(sql.ENQUEUE, params).fetchone()
            outcome = STORED
        except psycopg.Error as exc:
            outcome = exc.sqlstate or (CLIENT_REFUSES if isinstance(exc, psycopg.DataError) else repr(exc))
        assert outcome in allowed, f"got {outcome}, documented {allowed}"
        seen["stored" if outcome is STORED else outcome] += 1

        if outcome is STORED:
            job_id = row[0]
            stored = conn.execute(
                "select qq.name, j.dedup_key, j.priority, j.max_attempts, j.state"
                "  from q_data.job j join q_data.queue qq on qq.id = j.queue_id where j.id = %s", (job_id,)
            ).fetchall()
            assert stored == [(queue, dedup_key, priority, max_attempts, "w")]
            (job,) = claim(conn, queue, 1)  # through the Python client, as workers get it
            assert (job.id, job.queue, job.priority) == (job_id, queue, priority)
            assert same_json(payload_value(payload), job.payload), "the payload did not round-trip exactly"
            assert complete(conn, job.id, job.token)
            after = counts(conn)
            assert (after[0], after[2], after[3]) == (before[0], before[2], 0)
        else:
            assert counts(conn) == before, "a rejected call wrote something"

    one()
    assert counts(conn)[3] == 0, "the canary was written"
    assert conn.execute("select count(*) from q_data.job").fetchone()[0] == 0
    print(dict(seen))
    assert seen["stored"] > EXAMPLES // 10 and len(seen) >= 6, f"the strategies lost their variety: {seen}"
    record("7", f"{EXAMPLES:,} generated inputs", examples=EXAMPLES, canary_rows=0,
           **{f"outcome_{k}": v for k, v in sorted(seen.items())})


def test_payloads_nested_100_levels_are_stored_and_101_rejected_with_54000_by_enqueue_and_enqueue_many(
    conn: psycopg.Connection[Any],
) -> None:
    def nested(levels: int) -> str:
        return "[" * levels + "1" + "]" * levels  # the 1 sits `levels` levels below the top

    assert conn.execute(sql.ENQUEUE, ("deep", raw(nested(100)), None, 0, None, None)).fetchone()[0] > 0
    assert conn.execute(sql.ENQUEUE_MANY, ("deep", raw(f"[{nested(100)}]"), None, 0, None)).fetchall()
    empty_101 = "[" * 101 + "]" * 101  # 101 nested arrays: deeper than 100 too, though nothing sits at level 101
    for statement, text in ((sql.ENQUEUE, nested(101)), (sql.ENQUEUE_MANY, f"[{nested(101)}]"),
                            (sql.ENQUEUE, empty_101), (sql.ENQUEUE_MANY, f"[{empty_101}]")):
        params = ("deep", raw(text), None, 0) + ((None, None) if statement == sql.ENQUEUE else (None,))
        try:
            conn.execute(statement, params)
        except psycopg.Error as exc:
            assert exc.sqlstate == "54000"
        else:
            raise AssertionError("a payload nested 101 levels was stored")
    jobs = claim(conn, "deep", 10)
    assert [same_json(json.loads(nested(100)), j.payload) for j in jobs] == [True, True]
