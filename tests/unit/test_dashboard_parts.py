"""The dashboard's pieces without I/O: sparklines (numbers only reach the markup), cells, ages, error lines,
attempt numbers across retries, the dead summary, health order."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from pgq_client.dashboard._app import _unflash
from pgq_client.dashboard._format import age as _age
from pgq_client.dashboard._format import by_severity, explained, in_zone, numbered_errors, severity_counts
from pgq_client.dashboard._format import cell as _cell
from pgq_client.dashboard._format import error_line as _error_line
from pgq_client.dashboard._svg import sparkline


def points(svg: str) -> list[tuple[float, float]]:
    raw = svg.split('points="', 1)[1].split('"', 1)[0]
    return [(float(x), float(y)) for x, y in (p.split(",") for p in raw.split())]


def test_a_sparkline_scales_to_its_maximum_and_a_quiet_hour_is_a_flat_line() -> None:
    line = points(sparkline([0, 5, 10], width=100, height=22))
    assert [x for x, _ in line] == [0.0, 50.0, 100.0]
    assert line[2][1] == 1.0 and line[0][1] == 21.0 and line[1][1] == 11.0  # top, bottom, middle
    flat = points(sparkline([0, 0, 0, 0]))
    assert len({y for _, y in flat}) == 1


def test_a_sparkline_label_is_escaped() -> None:
    svg = sparkline([1, 2], label='<script>alert("x")</script> & more')
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "&quot;x&quot;" in svg and "&amp; more" in svg


def test_cells_ages_and_error_lines_read_well() -> None:
    assert _cell(None) == "–" and _cell({"a": 1}) == '{"a": 1}' and _cell(3) == "3"
    assert _cell(datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)) == "2026-12-01 09:30:00 UTC"
    assert [_age(timedelta(seconds=s)) for s in (5, 125, 7300, 90000)] == ["5 s", "2 min 5 s", "2 h 1 min", "1 d 1 h"]
    errors = [{"attempt": 1, "error": "Traceback (most recent call last):\n  File ...\nValueError: mailbox full\n"}]
    assert _error_line(errors) == "ValueError: mailbox full" and _error_line(None) == ""
    assert _error_line(errors[0]["error"]) == "ValueError: mailbox full"  # q.job_page's last_error is the text


def test_a_flash_cookie_that_is_not_ours_shows_nothing() -> None:
    assert _unflash('{"ok": true, "text": "queue emails paused"}') == {"ok": True, "text": "queue emails paused"}
    assert _unflash("not json") is None and _unflash('{"text": 5}') is None and _unflash("[1]") is None


PGQ_TRACEBACK = """Traceback (most recent call last):
  File "/app/.venv/lib/python3.11/site-packages/pgq_client/worker/_worker.py", line 680, in run_job
    value = handler(ctx, payload)
            ^^^^^^^^^^^^^^^^^^^^^
  File "/app/tasks.py", line 12, in send
    raise ValueError("bad")
ValueError: bad
"""


def test_the_error_line_is_the_exception_not_pgqs_frame() -> None:
    assert _error_line(PGQ_TRACEBACK) == "ValueError: bad"
    chained = PGQ_TRACEBACK + "\nDuring handling of the above exception, another exception occurred:\n\n" + \
        PGQ_TRACEBACK.replace("ValueError: bad", "KeyError: 'to'\nwith a second line")
    assert _error_line(chained) == "KeyError: 'to'"
    cut = PGQ_TRACEBACK[:150] + " [truncated: 9000 characters in all]"
    assert "cut at 4,096 characters before its exception line" in _error_line(cut)
    assert _error_line("SMTPError: mailbox full [truncated: 5000 characters in all]") == "SMTPError: mailbox full"
    assert _error_line("Traceback ...\nSMTPError: mailbox full") == "SMTPError: mailbox full"  # no frames


def test_the_dead_summary_quotes_the_exception_line() -> None:
    rows = [{"code": "dead", "message": "dead since ...: Traceback (most recent call last):\n  File ...",
             "detail": {"attempt": 3, "crashes": 1, "finished_at": "2026-12-04T20:30:00.12345+00:00",
                        "last_error": {"attempt": 3, "error": PGQ_TRACEBACK}}},
            {"code": "other", "message": "left alone", "detail": None}]
    out = explained(rows, 7)
    assert out[0]["message"] == ("dead since 2026-12-04 20:30:00 UTC after 3 attempt(s) (1 crash(es)): ValueError: bad;"
                                 " q.retry(7) puts it back")
    assert out[1] == rows[1]


def test_attempt_numbers_go_on_after_a_retry_and_errors_come_newest_first() -> None:
    errors = [{"attempt": 1, "error": "a"}, {"attempt": 2, "error": "b"}, {"attempt": 3, "error": "c"},
              {"attempt": 1, "error": "d"}, {"attempt": 2, "error": "e"}, {"attempt": 1, "error": "f"}]
    out = numbered_errors(errors)
    assert [(e["error"], e["number"], e["run"]) for e in out] == [
        ("f", 6, 3), ("e", 5, 2), ("d", 4, 2), ("c", 3, 1), ("b", 2, 1), ("a", 1, 1)]
    assert numbered_errors(None) == [] and numbered_errors([{"attempt": 1, "error": "x"}])[0]["number"] == 1
    assert numbered_errors([{"attempt": 1, "at": "2026-12-04T20:34:47.748113+00:00"}])[0]["when"] == \
        "2026-12-04 20:34:47 UTC"


def test_health_rows_come_problems_first_and_times_show_their_zone() -> None:
    rows = [{"severity": s, "check_name": n} for s, n in
            [("ok", "a"), ("warning", "b"), ("ok", "c"), ("critical", "d"), ("info", "e")]]
    assert [r["check_name"] for r in by_severity(rows)] == ["d", "b", "e", "a", "c"]
    assert severity_counts(rows) == [("critical", 1), ("warning", 1), ("info", 1), ("ok", 2)]
    at = datetime(2026, 7, 1, 7, 0, tzinfo=timezone.utc)
    assert in_zone(at, "Europe/Berlin") == "2026-07-01 09:00:00 Europe/Berlin"
    assert in_zone(at, "UTC") == "" and in_zone(at, "Not/AZone") == "" and in_zone(None, "Europe/Berlin") == ""
    assert _cell(True) == "yes" and _cell(False) == "no"
