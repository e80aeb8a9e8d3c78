#!/usr/bin/env python3
"""Write the SQL API reference (Markdown) from the files under sql/.

    scripts/gen_sql_reference.py OUT.md

One section per public function (sql/functions/*.sql): its signature as
written, what it returns, which role may call it (from the file's GRANT) and
the promise its ``COMMENT ON FUNCTION`` makes. The reference is generated at
docs build time, never committed, so it can never drift from the SQL: the
comment is the one place a function's contract is written down.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SQL = ROOT / "sql"

HEADER = re.compile(r"create\s+or\s+replace\s+function\s+(q\.\w+)\s*\(", re.I)
RETURNS = re.compile(r"\)\s*returns\s+(.+?)\s*\n\s*language\b", re.I | re.S)
COMMENT = re.compile(r"comment\s+on\s+function\s+(q\.\w+)\s*\(([^)]*)\)\s+is\s+'((?:[^']|'')*)'\s*;", re.I | re.S)
TYPE = re.compile(r"create\s+type\s+(q\.\w+)\s+as\s*\(", re.I)
TYPE_COMMENT = re.compile(r"comment\s+on\s+type\s+(q\.\w+)\s+is\s+'((?:[^']|'')*)'\s*;", re.I | re.S)
GRANT = re.compile(r"grant\s+execute\s+on\s+function\s+(q\.\w+)\s*\(([^)]*)\)\s+to\s+([\w, ]+);", re.I)


@dataclass
class Function:
    name: str
    params: list[str]
    returns: str
    comment: str
    roles: list[str]
    source: str


def _balanced(text: str, start: int) -> tuple[str, int]:
    """The text between the parenthesis opened just before ``start`` and its match."""
    depth, i, quote = 1, start, False
    while i < len(text):
        c = text[i]
        if c == "'":
            quote = not quote
        elif not quote and c == "(":
            depth += 1
        elif not quote and c == ")":
            depth -= 1
            if depth == 0:
                return text[start:i], i
        i += 1
    raise ValueError("unbalanced parentheses")


def _split_params(inner: str) -> list[str]:
    params, depth, quote, current = [], 0, False, ""
    for c in inner:
        if c == "'":
            quote = not quote
        if not quote and c in "([":
            depth += 1
        elif not quote and c in ")]":
            depth -= 1
        if c == "," and depth == 0 and not quote:
            params.append(" ".join(current.split()))
            current = ""
        else:
            current += c
    if current.strip():
        params.append(" ".join(current.split()))
    return params


def parse(path: Path) -> list[Function]:
    text = path.read_text()
    comments = {m.group(1): m.group(3).replace("''", "'") for m in COMMENT.finditer(text)}
    roles: dict[str, list[str]] = {}
    for m in GRANT.finditer(text):
        roles.setdefault(m.group(1), []).extend(r.strip() for r in m.group(3).split(","))
    found = []
    for m in HEADER.finditer(text):
        inner, end = _balanced(text, m.end())
        ret = RETURNS.match(text, end)
        found.append(Function(
            name=m.group(1),
            params=_split_params(inner),
            returns=" ".join(ret.group(1).split()) if ret else "",
            comment=comments.get(m.group(1), ""),
            roles=roles.get(m.group(1), []),
            source=str(path.relative_to(ROOT)),
        ))
    return found


def parse_types(path: Path) -> list[tuple[str, list[str], str]]:
    """(name, fields, comment) of each composite type a schema file creates."""
    text = path.read_text()
    comments = {m.group(1): m.group(2).replace("''", "'") for m in TYPE_COMMENT.finditer(text)}
    return [(m.group(1), _split_params(_balanced(text, m.end())[0]), comments.get(m.group(1), ""))
            for m in TYPE.finditer(text)]


def render_types(types: list[tuple[str, list[str], str]]) -> list[str]:
    lines = ["", "## Result types", ""]
    for name, fields, comment in types:
        lines += [f"### {name}", "", comment or "_(no comment)_", "", "| field | type |", "|---|---|"]
        lines += [f"| `{f.split()[0]}` | `{' '.join(f.split()[1:])}` |" for f in fields]
        lines.append("")
    return lines


def render(functions: list[Function], types: list[tuple[str, list[str], str]] | None = None) -> str:
    lines = [
        "# SQL API reference",
        "",
        "Generated from `sql/functions/*.sql` when the docs are built: each entry is the function's",
        "signature as written, the role that may call it, and its `COMMENT ON FUNCTION` (what the",
        "database itself shows in `\\df+`). Arguments can be passed by name: `q.claim(queue => 'emails', n => 10)`.",
        "",
        "| function | returns | role |",
        "|---|---|---|",
    ]
    for f in functions:
        anchor = f.name.replace(".", "")
        lines.append(f"| [`{f.name}`](#{anchor}) | `{f.returns}` | {', '.join(f.roles) or 'owner only'} |")
    for f in functions:
        lines += ["", f"## {f.name}", "", "```sql", f"{f.name}("]
        lines += [f"  {p}{',' if i < len(f.params) - 1 else ''}" for i, p in enumerate(f.params)]
        lines += [f") returns {f.returns}", "```", ""]
        roles = ", ".join(f"`{r}`" for r in f.roles) or "the owner only"
        lines.append(f"**May call:** {roles} · **Source:** `{f.source}`")
        lines += ["", f.comment or "_(no comment)_"]
    lines += render_types(types or [])
    return "\n".join(lines) + "\n"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    functions = [f for path in sorted((SQL / "functions").glob("*.sql")) for f in parse(path)]
    missing = [f.name for f in functions if not f.comment]
    if missing:
        print(f"functions without COMMENT ON FUNCTION: {', '.join(missing)}", file=sys.stderr)
        return 1
    types = [t for path in sorted((SQL / "schema").glob("*.sql")) for t in parse_types(path)]
    Path(sys.argv[1]).write_text(render(functions, types))
    return 0


if __name__ == "__main__":
    sys.exit(main())
