#!/usr/bin/env python3
"""Write the Python API reference (Markdown) from pgq_client's own signatures and docstrings.

    scripts/gen_python_reference.py OUT.md

One section per public module, one entry per name it exports (``__all__``): the signature as
``inspect`` reads it and the docstring, the one place each contract is written. Like the SQL
reference it is generated at docs build time and never committed, so it cannot drift. A few
reStructuredText habits of the docstrings become Markdown (``:func:`x``` -> `x`, ``::`` blocks ->
code blocks).
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from enum import Enum
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python_client"))

# (module, the names to document: None = its __all__), in reading order: the layers, top down.
MODULES: list[tuple[str, list[str] | None]] = [
    ("pgq_client", None),
    ("pgq_client.aio", None),
    ("pgq_client.payloads", ["register", "unregister", "dumps", "default"]),
    ("pgq_client.sqlalchemy", None),
    ("pgq_client.migrations", None),
    ("pgq_client.worker", None),
    ("pgq_client.testing", None),
]
SKIP = {"CHANNEL"}  # constants, documented in their module's text


def inline(text: str) -> str:
    """rST's ``code`` as Markdown's `code`."""
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def markdown(doc: str | None) -> str:
    """A docstring as Markdown."""
    if not doc:
        return ""
    text = inspect.cleandoc(doc)
    text = re.sub(r":(?:func|class|meth|mod|attr|data|exc):`~?([^`]+)`", r"`\1`", text)
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("::") and not line.strip().startswith(".."):
            out.append(inline(line.rstrip()[:-1]) if line.strip() != "::" else "")
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", "```python", *inspect.cleandoc("\n".join(block)).splitlines(), "```", ""]
            continue
        if re.match(r"^=+(\s+=+)+\s*$", line):  # an rST simple table (no header): a Markdown table
            starts = [m.start() for m in re.finditer(r"=+", line)]
            i += 1
            rows = []
            while i < len(lines) and not re.match(r"^=+(\s+=+)+\s*$", lines[i]):
                cells = [inline(lines[i][a:b].strip()) for a, b in zip(starts, [*starts[1:], None], strict=True)]
                rows.append("| " + " | ".join(cells) + " |")
                i += 1
            out += ["", "| " + " | ".join(" " for _ in starts) + " |", "|" + "---|" * len(starts), *rows, ""]
            i += 1
            continue
        out.append(inline(line))
        i += 1
    return "\n".join(out)


def signature(name: str, obj: Any) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return name
    sig = re.sub(r"\s+", " ", sig)
    sig = re.sub(r"(:\s|->\s)'([^']*)'", r"\1\2", sig)  # annotations are strings (from __future__ import annotations)
    if inspect.isclass(obj):
        sig = re.sub(r" -> None$", "", sig)
    return f"{name}{sig}"


def entry(module: str, name: str, obj: Any) -> str:
    kind = "class" if inspect.isclass(obj) else ("async def" if inspect.iscoroutinefunction(obj) else "def")
    if not (inspect.isclass(obj) or callable(obj)):
        return f"### `{name}`\n\n`{module}.{name} = {obj!r}`\n"
    if inspect.isclass(obj) and issubclass(obj, Enum):
        members = ", ".join(f"`{m.name}` = `{m.value!r}`" for m in obj)
        return "\n".join([f"### `{name}`\n", "```python", f"class {name}(str, Enum)", "```", "",
                          markdown(obj.__doc__), "", f"Members: {members}.", ""])
    parts = [f"### `{name}`\n", "```python", f"{kind} {signature(name, obj)}", "```", "", markdown(obj.__doc__), ""]
    if inspect.isclass(obj) and not issubclass(obj, BaseException):
        for member, value in vars(obj).items():
            if member.startswith("_") or not (inspect.isfunction(value) or isinstance(value, property)):
                continue
            target = value.fget if isinstance(value, property) else value
            if target is None or not target.__doc__:
                continue
            label = member if isinstance(value, property) else signature(member, value)
            parts += [f"- `{label}`: " + markdown(target.__doc__).split("\n\n")[0].replace("\n", " ")]
        parts.append("")
    return "\n".join(parts)


def module_page(module: str, names: list[str] | None) -> str:
    mod = importlib.import_module(module)
    wanted = names if names is not None else list(getattr(mod, "__all__", []))
    parts = [f"## `{module}`\n", markdown(mod.__doc__), ""]
    for name in wanted:
        if name in SKIP or name.startswith("__"):
            continue
        obj = getattr(mod, name)
        if inspect.ismodule(obj):
            continue
        parts.append(entry(module, name, obj))
    return "\n".join(parts)


def main() -> int:
    out = Path(sys.argv[1])
    pages = ["# Python API\n",
             "Generated from the package's signatures and docstrings (`scripts/gen_python_reference.py`)"
             " at docs build time. The SQL functions these call are in the [SQL API reference](sql.md).\n"]
    pages += [module_page(m, n) for m, n in MODULES]
    out.write_text("\n".join(pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
