"""The thin client: one job's payload or error text can only hurt that job (design.md#one-job-hurts-only-itself)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from pgq_client import UndecodablePayload, claim, enqueue, enqueue_many, fail, fail_many
from pgq_client import jobs as pgq_jobs

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


POISON = '{"n": 1e4300}'  # stored as a 4,301-digit integer; Python's json refuses more than 4,300 digits


def enqueue_poison(conn: psycopg.Connection[Any], queue: str = "w") -> int:
    return int(conn.execute("select q.enqueue(%s, %s::jsonb)", (queue, POISON)).fetchone()[0])


def test_claim_returns_every_job_of_a_batch_with_an_undecodable_payload_marked_in_its_own_job_only(
    conn: psycopg.Connection[Any],
) -> None:
    first = enqueue_many(conn, "w", [{"n": i} for i in range(4)])
    poison = enqueue_poison(conn)
    last = enqueue_many(conn, "w", [{"n": i} for i in range(4, 8)])
    jobs = claim(conn, "w", 20)
    assert [j.id for j in jobs] == [*first, poison, *last], "one bad payload does not lose the batch"
    by_id = {j.id: j for j in jobs}
    assert [by_id[i].payload for i in first + last] == [{"n": i} for i in range(8)]
    bad = by_id[poison].payload
    assert isinstance(bad, UndecodablePayload)
    assert "4300 digits" in bad.reason and "cannot decode" in bad.reason
    with pytest.raises(ValueError, match="could not be decoded"):
        bad["n"]
    assert fail(conn, poison, by_id[poison].token, bad.reason, retryable=False) == "dead"
    state, errors = errors_by_id(conn)[poison]
    assert state == "dead" and "cannot decode" in errors[0]
    listed = {j.id: j.payload for j in pgq_jobs(conn, queue="w", limit=20)}  # the admin listing reads it too
    assert isinstance(listed[poison], UndecodablePayload) and listed[first[0]] == {"n": 0}
