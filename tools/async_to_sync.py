#!/usr/bin/env python3
"""Generate pgq's sync code from its async source, so threads and asyncio cannot drift.

    tools/async_to_sync.py            rewrite every generated file
    tools/async_to_sync.py --check    exit 1 if a generated file differs from what its source gives

The async code is the one source (psycopg does the same with its
tools/async_to_sync.py; httpcore with unasync). The translation works on
tokens, so comments and docstrings are kept and translated too:

* ``async def`` / ``async with`` / ``async for`` lose ``async``; ``await`` goes;
* names are mapped word for word (``AsyncConnection`` -> ``Connection``,
  ``AEvent`` -> ``Event``, ...: see ``NAMES``), in code, strings and comments;
* a line whose comment ends with ``# async-only`` is dropped, and a line with
  ``# sync: <code>`` is replaced by ``<code>`` (same indentation): the escape
  hatches for the few places where threads and asyncio really differ (most
  differences live in the compat modules, ``worker/_acompat.py`` and
  ``worker/_compat.py``, which are written by hand, one beside the other);
* the result's imports are sorted and unused ones dropped by ``ruff --fix``
  (selecting I and F401 only), so it passes ``make lint`` as it is.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "python_client" / "pgq_client"

# (async source, generated sync file)
PAIRS = [
    (PKG / "aio.py", PKG / "_client.py"),
    (PKG / "worker" / "_async_worker.py", PKG / "worker" / "_worker.py"),
    (PKG / "worker" / "_async_group.py", PKG / "worker" / "_group.py"),
]

NAMES = {
    "AsyncConnection": "Connection",
    "AsyncConnectionPool": "ConnectionPool",
    "AsyncIterator": "Iterator",
    "AsyncGenerator": "Generator",
    "AsyncWorker": "Worker",
    "AsyncWorkerGroup": "WorkerGroup",
    "AsyncWaker": "Waker",
    "AsyncEngine": "Engine",
    "_acompat": "_compat",
    "AEvent": "Event",
    "AQueue": "Queue",
    "aspawn": "spawn",
    "ajoin": "join",
    "asleep": "sleep",
    "acall": "call",
    "acall_hook": "call_hook",
    "await_first": "wait_first",
    "anext": "next",
    "aclose": "close",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
    "StopAsyncIteration": "StopIteration",
    "aio": "_client",
    "ainstall_signals": "install_signals",
}

HEADER = (
    "# WARNING: this file is generated from {source} by tools/async_to_sync.py: do not edit it.\n"
    "# Edit the async source and run `tools/async_to_sync.py` (make lint checks it is current).\n"
)

_WORD = re.compile(r"\b(" + "|".join(sorted(map(re.escape, NAMES), key=len, reverse=True)) + r")\b")
_SYNC = re.compile(r"^(\s*).*#\s*sync:\s*(.*?)\s*$")
_ASYNC_ONLY = re.compile(r"#\s*async-only\b")


def _names(text: str) -> str:
    return _WORD.sub(lambda m: NAMES[m.group(1)], text)


def _untokenize_line_edits(source: str) -> str:
    """Drop the async keywords, token by token, keeping every other character where it was."""
    lines = source.splitlines(keepends=True)
    # (row, col_start, col_end) spans to delete: "async " before def/with/for, "await ".
    spans: list[tuple[int, int, int]] = []
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or tok.string not in ("async", "await"):
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.string == "async" and (nxt is None or nxt.string not in ("def", "with", "for")):
            continue
        row, col = tok.start
        end = nxt.start[1] if nxt is not None and nxt.start[0] == row else tok.end[1]
        spans.append((row, col, end))
    for row, start, end in sorted(spans, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + line[end:]
    return "".join(lines)


def translate(source: str, source_name: str) -> str:
    """The sync twin of an async module's text."""
    out: list[str] = []
    for line in source.splitlines(keepends=True):
        if _ASYNC_ONLY.search(line):
            continue
        m = _SYNC.match(line)
        if m:
            line = f"{m.group(1)}{m.group(2)}\n"
        out.append(line)
    text = _names(_untokenize_line_edits("".join(out)))
    text = HEADER.format(source=source_name) + text
    return _ruff_fix(text)


def _ruff_fix(text: str) -> str:
    ruff = Path(sys.executable).with_name("ruff")
    cmd = [str(ruff) if ruff.exists() else "ruff", "check", "--quiet", "--fix", "--select", "I,F401",
           "--stdin-filename", str(PKG / "generated.py"), "-"]
    done = subprocess.run(cmd, input=text, capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 1) or not done.stdout:
        raise SystemExit(f"ruff failed on the generated code: {done.stderr}")
    return done.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if a generated file is stale; write nothing")
    args = ap.parse_args()
    stale = []
    for source, target in PAIRS:
        rel = source.relative_to(ROOT / "python_client")
        text = translate(source.read_text(), str(rel))
        if target.exists() and target.read_text() == text:
            continue
        if args.check:
            stale.append(target.relative_to(ROOT))
        else:
            target.write_text(text)
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        names = ", ".join(map(str, stale))
        print(f"stale generated code: {names} (run tools/async_to_sync.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
