"""The dashboard's pieces without I/O: sparklines (numbers only reach the markup), cells, ages, error lines."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from pgq_client.dashboard._app import _age, _cell, _error_line, _unflash
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
