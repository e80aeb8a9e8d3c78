"""The round statement and its answer, read by column name; error classification and summaries."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import psycopg
import pytest
from pgq_client import _queries as sql
from pgq_client._error_text import clean, described
from pgq_client.records import FailStatus, Job
from pgq_client.worker._claimed import ClaimedJob
from pgq_client.worker._ledger import Claim, Result, ResultKind, Round, summary
from pgq_client.worker._round_trip import build, read
from pgq_client.worker._transient import fatal_reason, is_transient


def ctx(i: int) -> ClaimedJob:
    return ClaimedJob(Job(i, "a", {}, 1, 0, 0, uuid.uuid4(), datetime.now(timezone.utc)), 60.0, 0)


def test_a_round_is_one_union_all_statement_in_branch_order_with_the_claim_last() -> None:
    rnd = Round(results=[Result(ResultKind.DEAD, ctx(3), "bad"), Result(ResultKind.COMPLETE, ctx(1))],
                releases=[ctx(4)], claim=Claim("a", 5, 0, 0, None), owner=9)
    statement, params = build(rnd)  # type: ignore[misc]
    assert statement == sql.round_statement(("complete", "dead", "release", "claim", "blocked"))
    assert statement.index("complete_many") < statement.index("q.fail(") < statement.index("release_many")
    assert statement.index("release_many") < statement.index("q.claim(") < statement.index("pgq.claim_blocked")
    assert params[:2] == [[1], [rnd.results[1].ctx.token]] and params[-4:] == ["a", 5, None, 9]
    assert build(Round()) is None


def test_the_answer_is_read_by_column_name() -> None:
    token = uuid.uuid4()
    now = datetime.now(timezone.utc)
    rows = [
        {"kind": "c", "id": 1, "status": None},
        {"kind": "f", "id": 2, "status": "dead"},
        {"kind": "r", "id": 3, "status": None},
        {"lease_until": now, "token": token, "priority": 0, "crashes": 0, "attempt": 1, "payload": [1],
         "queue": "a", "status": None, "id": 5, "kind": "j"},
    ]
    columns = ["lease_until", "token", "priority", "crashes", "attempt", "payload", "queue", "status", "id", "kind"]
    answer = read(columns, [[row.get(c) for c in columns] for row in rows])
    assert answer.completed == {1} and answer.failed == {2: FailStatus.DEAD} and answer.released == {3}
    assert answer.claimed == [Job(5, "a", [1], 1, 0, 0, token, now)]


def test_a_claim_a_limit_cut_short_says_which_limit_and_when_to_come_back() -> None:
    columns = ["kind", "id", "status", "queue", "payload", "attempt", "crashes", "priority", "token", "lease_until"]
    answer = read(columns, [["b", None, "rate 0.25", *[None] * 7]])
    assert answer.blocked == "rate" and answer.retry_in == 0.25
    answer = read(columns, [["b", None, "concurrency", *[None] * 7]])
    assert answer.blocked == "concurrency" and answer.retry_in is None
    assert read(columns, []).blocked == ""


def test_every_branch_names_every_column_so_any_branch_can_come_first() -> None:
    for name, branch in sql.ROUND_BRANCHES.items():
        assert " as kind" in branch and (" as status" in branch or "f.status" in branch), name


def test_summary_is_the_exception_type_and_the_first_line_of_its_message() -> None:
    exc = ValueError("1 validation error for Email\nto\n  Field required\nFor further information visit https://x")
    assert summary(exc) == "ValueError: 1 validation error for Email"
    assert summary(KeyError()) == "KeyError"


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def test_summary_of_an_exception_whose_str_raises_is_its_type_name() -> None:
    assert summary(Unprintable()) == "Unprintable"
    assert described(Unprintable()) == "Unprintable"


def test_error_text_keeps_every_character_a_text_column_holds_and_escapes_nul_and_lone_surrogates() -> None:
    assert clean("plain, ünïcødé, emoji \U0001f600") == "plain, ünïcødé, emoji \U0001f600"
    assert clean("a\x00b") == "a\\x00b"
    assert clean("x" + b"\xff".decode("utf-8", "surrogateescape")) == "x\\udcff"
    assert clean("\ud800\x00") == "\\ud800\\x00"
    for text in ("a\x00b", "\udcff", "\ud800 \x00 \udfff"):
        clean(text).encode("utf-8")  # valid UTF-8 now


def test_a_round_sends_its_failures_error_texts_cleaned() -> None:
    rnd = Round(results=[Result(ResultKind.FAIL, ctx(1), "boom\x00"), Result(ResultKind.DEAD, ctx(2), "\udcff")])
    _, params = build(rnd)  # type: ignore[misc]
    assert params[2] == ["boom\\x00"] and params[5] == ["\\udcff"]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ('connection failed: connection to server on socket "/s" failed: FATAL:  database "shop" does not exist',
         'database "shop" does not exist: create it'),
        ('connection failed: connection to server at "h" failed: FATAL:  password authentication failed for user "a"',
         "check the user and password"),
        ('connection failed: connection to server at "h" failed: FATAL:  role "bob" does not exist',
         'role "bob" does not exist: create the role'),
        ('connection failed: connection to server at "h" failed: FATAL:  no pg_hba.conf entry for host "1.2.3.4"',
         "cannot log in"),
    ],
)
def test_connection_errors_that_cannot_fix_themselves_are_told_apart_by_the_servers_message(
    message: str, expected: str
) -> None:
    reason = fatal_reason(psycopg.OperationalError(message))
    assert reason is not None and expected in reason


@pytest.mark.parametrize(
    "message",
    ['connection failed: connection to server on socket "/s" failed: No such file or directory',
     "connection failed: FATAL:  sorry, too many clients already",
     "connection failed: FATAL:  the database system is starting up"],
)
def test_a_server_that_is_down_or_busy_is_waited_out(message: str) -> None:
    exc = psycopg.OperationalError(message)
    assert fatal_reason(exc) is None and is_transient(exc)


def test_a_listening_claim_asks_whether_it_started_a_wait_and_reads_the_answer() -> None:
    rnd = Round(claim=Claim("a", 5, 0, 0, None), owner=9, listening=True)
    statement, _ = build(rnd)  # type: ignore[misc]
    assert statement == sql.round_statement(("listening", "claim", "blocked", "waiting"))
    assert statement.index("pgq.listening") < statement.index("q.claim(") < statement.index("pgq.claim_waiting")
    assert "pgq.claim_waiting" not in build(Round(claim=Claim("a", 5, 0, 0, None), owner=9))[0]  # type: ignore[index]
    columns = ["kind", "id", "status", "queue", "payload", "attempt", "crashes", "priority", "token", "lease_until"]
    assert read(columns, [["w", *[None] * 9]]).waiting is True
    assert read(columns, []).waiting is False
