"""Issue 21, the thin client: one job's payload or error text can only hurt that job."""

from __future__ import annotations

from typing import Any

import psycopg
from pgq_client import claim, enqueue, enqueue_many, fail, fail_many

JOB_ERRORS = "select id, state, errors from q.jobs(queue => %s, max_rows => 1000)"  # never the payload column


def errors_by_id(conn: psycopg.Connection[Any], queue: str = "w") -> dict[int, tuple[str, list[str]]]:
    rows = conn.execute(JOB_ERRORS, (queue,)).fetchall()
    return {r[0]: (r[1], [e["error"] for e in r[2] or []]) for r in rows}


def test_fail_and_fail_many_send_error_texts_with_nul_and_lone_surrogates_cleaned(
    conn: psycopg.Connection[Any],
) -> None:
    conn.execute("select q.configure('w', max_attempts => 1)")
    enqueue_many(conn, "w", [{"n": i} for i in range(3)])
    one, two, three = claim(conn, "w", 3)
    assert fail(conn, one.id, one.token, "NUL \x00 here") == "dead"
    outcomes = fail_many(conn, [(two, "lone \udcff"), (three, "\ud800\x00")])
    assert [o.status for o in outcomes] == ["dead", "dead"]
    seen = errors_by_id(conn)
    assert seen[one.id] == ("dead", ["NUL \\x00 here"])
    assert seen[two.id] == ("dead", ["lone \\udcff"])
    assert seen[three.id] == ("dead", ["\\ud800\\x00"])
    assert enqueue(conn, "w", {}) > 0
