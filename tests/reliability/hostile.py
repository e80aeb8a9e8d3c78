"""Hostile inputs for suite 7 and the documented answer to each.

The strategies build queue names, dedup keys, priorities and JSON payloads
full of what breaks naive code: quotes, ``%``, ``$$``, ``;``, ``--``,
backslashes, NUL, control and right-to-left characters, lone surrogates,
0 to 1,000-byte strings, deeply nested and huge JSON, NaN. ``expected``
applies the README's rules (SQLSTATE table, queue name pattern, size cap) in
the order q.enqueue checks them, independently of pgq's code.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

QUEUE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}")
PAYLOAD_CAP = 1_048_576  # bytes, as jsonb (README: 54000 over 1 MiB)
DEPTH_CAP = 100  # nested arrays/objects (README: 54000 deeper; 101 nested empty arrays are refused)
CANARY_SQL = "insert into public.canary values ('{}')"

# Pieces that end a string literal, a dollar quote, a statement or a
# comment, format placeholders, escapes, and Unicode that reorders or hides text.
FRAGMENTS = [
    "'", "''", '"', "%", "%s", "%(x)s", "{}", "$$", "$q$", ";", "--", "/*", "*/", "\\", "\\'", "\\x00",
    "\x00", "\n", "\r", "\t", "\x1b[31m", "\x7f", "\u202e", "\u202d", "\u200f", "\u2066", "\u2069", "\ufeff",
    "\u200b", "\U0001f600", "é", "ß", "ア", "q_data.job", "pg_temp.", "public.", "::jsonb", ");", "E'",
    "'; " + CANARY_SQL.format("quote") + "; --",
    "$$; " + CANARY_SQL.format("dollar") + "; $$",
    "'); " + CANARY_SQL.format("paren") + "; --",
    "\\'; " + CANARY_SQL.format("backslash") + "; --",
    "'||(select " + CANARY_SQL.format("subselect") + ")||'",
]

def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, picked in proportion to its weight (st.one_of picks evenly)."""
    table = [strategy for weight, strategy in choices for _ in range(weight)]
    return st.integers(0, len(table) - 1).flatmap(lambda i: table[i])


_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=20)
_hostile_short = st.lists(st.one_of(st.sampled_from(FRAGMENTS), _text), max_size=12).map("".join)
_lengths = st.integers(0, 1000).flatmap(lambda n: st.sampled_from(["a", "é", "'", "%", "\u202e", "ア"]).map(
    lambda c: (c * n).encode()[:n].decode("utf-8", "ignore")))
HOSTILE_TEXT = st.one_of(_hostile_short, _lengths, st.text(max_size=300))

_VALID_QUEUE = st.from_regex(QUEUE_PATTERN, fullmatch=True)
QUEUE_NAMES = weighted(
    (12, _VALID_QUEUE),
    (3, HOSTILE_TEXT),
    (2, _VALID_QUEUE.flatmap(lambda q: st.sampled_from(FRAGMENTS).map(lambda f: q + f))),
    (1, st.just("")),
    (1, st.none()),
)
DEDUP_KEYS = weighted((10, st.none()), (4, HOSTILE_TEXT), (1, _lengths), (1, st.text(min_size=500, max_size=520)))
PRIORITIES = weighted((8, st.just(0)), (6, st.integers(-32768, 32767)), (1, st.integers(-40_000, 40_000)),
                      (1, st.integers(-(2**31), 2**31 - 1)))
MAX_ATTEMPTS = weighted((8, st.none()), (1, st.integers(-5, 40_000)))

_json_text = HOSTILE_TEXT.filter(lambda t: "\x00" not in t)  # NUL goes in through _faults
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(2**200), 2**200),
    st.floats(allow_nan=False, allow_infinity=False), _json_text, _json_text,
)
_json_trees = st.recursive(
    _scalars,
    lambda children: st.one_of(st.lists(children, max_size=6), st.dictionaries(_json_text, children, max_size=6)),
    max_leaves=30,
)
# What JSON or jsonb cannot hold, somewhere inside an otherwise fine tree:
# NaN and infinities (json.dumps writes them, JSON has none), NUL, lone surrogates.
_faults = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf]),
    HOSTILE_TEXT.map(lambda t: t + "\x00"),
    st.characters(categories=["Cs"]).map(lambda c: "x" + c),
)
_faulty_trees = st.tuples(_json_trees, _faults, st.booleans()).map(
    lambda t: [t[0], t[1]] if t[2] else {"ok": t[0], str(t[1]) if isinstance(t[1], float) else t[1]: 1}
)


@dataclass(frozen=True)
class Deep:
    """A payload nested `depth` levels deep (serialized by hand: json.dumps would recurse)."""

    depth: int
    kind: str  # "array" or "object"
    leaf: Any

    def text(self) -> str:
        opening, closing = ("[", "]") if self.kind == "array" else ('{"k":', "}")
        return opening * self.depth + json.dumps(self.leaf) + closing * self.depth

    def value(self) -> Any:
        value = self.leaf
        for _ in range(self.depth):
            value = [value] if self.kind == "array" else {"k": value}
        return value


@dataclass(frozen=True)
class Huge:
    """A payload of one long string, or an array of many small numbers (jsonb much larger than its text)."""

    size: int
    kind: str  # "string" or "numbers"

    def text(self) -> str:
        if self.kind == "string":
            return json.dumps("x" * self.size)
        return "[" + ",".join(["1"] * self.size) + "]"

    def value(self) -> Any:
        return "x" * self.size if self.kind == "string" else [1] * self.size


DEEP = st.builds(
    Deep,
    st.one_of(st.integers(1, 120), st.sampled_from([99, 100, 101, 102, 500, 990, 1000, 1100, 5000, 20000, 100_000])),
    st.sampled_from(["array", "object"]),
    st.one_of(st.none(), st.integers(), st.just("'; --")),
)
HUGE = st.one_of(
    st.builds(Huge, st.sampled_from([200_000, 1_048_000, 1_100_000]), st.just("string")),
    st.builds(Huge, st.sampled_from([50_000, 90_000]), st.just("numbers")),
)
PAYLOADS = weighted((28, _json_trees), (4, _faulty_trees), (4, DEEP), (1, HUGE))


def payload_text(payload: Any, ascii_only: bool) -> str:
    """The JSON text sent to the server (NaN and Infinity as Python writes them: not JSON).

    Non-ASCII travels as UTF-8, or as \\u escapes when ascii_only (always for
    lone surrogates, which UTF-8 cannot carry); NUL always as \\u0000.
    """
    if isinstance(payload, (Deep, Huge)):
        return payload.text()
    text = json.dumps(payload, ensure_ascii=ascii_only)
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(payload)
    return text


def payload_value(payload: Any) -> Any:
    return payload.value() if isinstance(payload, (Deep, Huge)) else payload


def _walk(value: Any) -> list[Any]:
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        out.append(item)
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return out


def _container(item: Any) -> bool:
    return isinstance(item, (list, dict))


def _depth(payload: Any) -> int:
    """Nested arrays/objects around the deepest value (a scalar inside d containers: d; an empty
    container inside d containers: d + 1), which is what a recursive decoder counts."""
    if isinstance(payload, Deep):
        return payload.depth + (1 if _container(payload.leaf) else 0)
    if isinstance(payload, Huge):
        return 1 if payload.kind == "numbers" else 0
    best, stack = 0, [(payload, 0)]
    while stack:
        item, level = stack.pop()
        best = max(best, level + (1 if _container(item) else 0))
        children = item if isinstance(item, list) else list(item.values()) if isinstance(item, dict) else []
        stack.extend((child, level + 1) for child in children)
    return best


CLIENT_REFUSES = "client"  # psycopg refuses a text parameter with NUL before anything reaches the server
STORED = None


def expected(queue: str | None, payload: Any, dedup_key: str | None, priority: int, max_attempts: int | None,
             jsonb_size: int | None) -> set[str | None]:
    """The documented outcomes: {STORED} or the SQLSTATE(s), in the order the checks run.

    Several faults in one JSON text fail at whichever the parser meets first,
    so those allow each of their codes.
    """
    if any(isinstance(t, str) and "\x00" in t for t in (queue, dedup_key)):
        return {CLIENT_REFUSES}
    if not isinstance(payload, (Deep, Huge)):
        faults: set[str | None] = set()
        for item in _walk(payload):
            if isinstance(item, float) and not math.isfinite(item):
                faults.add("22P02")  # NaN / Infinity are not JSON
            elif isinstance(item, str):
                if re.search("[\ud800-\udfff]", item):
                    faults.add("22P02")  # a lone surrogate escape is invalid JSON text
                if "\x00" in item:
                    faults.add("22P05")  # \u0000 cannot be stored in jsonb
        if faults:
            return faults
    depth = _depth(payload)
    if depth >= 20_000:
        return {"54001", "54000"}  # PostgreSQL's own JSON parser may run out of stack first
    if jsonb_size is not None and jsonb_size > PAYLOAD_CAP:
        return {"54000"}
    if depth > DEPTH_CAP:
        return {"54000"}
    if not -32768 <= priority <= 32767:
        return {"22023"}
    if max_attempts is not None and not 1 <= max_attempts <= 32767:
        return {"22023"}
    if dedup_key is not None and not 1 <= len(dedup_key.encode()) <= 512:
        return {"22023"}
    if queue is None:
        return {"22004"}
    if not QUEUE_PATTERN.fullmatch(queue):
        return {"22023"}
    return {STORED}


def same_json(sent: Any, got: Any) -> bool:
    """Equal as JSON: same types (bool is not a number), numbers equal as decimals, strings exact."""
    stack = [(sent, got)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str):
            if type(a) is not type(b) or a != b:
                return False
        elif isinstance(a, (int, float)):
            if isinstance(b, bool) or not isinstance(b, (int, float)) or Decimal(repr(a)) != Decimal(repr(b)):
                return False
        elif isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif isinstance(a, dict):
            if not isinstance(b, dict) or a.keys() != b.keys():
                return False
            stack.extend((a[k], b[k]) for k in a)
        else:
            return False
    return True
