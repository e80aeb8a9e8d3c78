"""Comments cite the design notes as ``design.md#<anchor>`` (docs/manual/design.md says so at its top).

Every such citation in the code, the SQL, the tests and the bench names a heading
of that page, by the anchor the docs build gives it; and Python comments and docstrings cite the
page, not the issue tracker or the articles by number, which live outside the repository.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "manual" / "design.md"
# The history under alembic/versions and alembic/sql is frozen: it keeps the words it was written with.
SOURCES = ("sql", "python_client", "tests", "bench", "scripts", "tools", "pgtap")
# Made by tools, not written here (.gitignore): npm's packages, bench results, the wheel build's copies.
GENERATED = ("bench/node/node_modules/", "bench/results/", "python_client/build/", "python_client/pgq_client/alembic/")
CITATION = re.compile(r"design\.md#([A-Za-z0-9_-]+)")
TRACKER = re.compile(r"[Ii]ssue #?[0-9]+|[Ss]eed 00[0-9]")


def anchors() -> set[str]:
    """The anchors of the page's headings, made as the docs build makes them (mkdocs' toc extension)."""
    found: set[str] = set()
    fenced = False
    for line in DESIGN.read_text().splitlines():
        fenced ^= line.startswith("```")
        if not fenced and re.match(r"#{1,6} ", line):
            found.add(slugify(line.lstrip("#").strip(), "-"))
    return found


def written(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return not rel.startswith(GENERATED) and not any(part.startswith(".") for part in path.relative_to(ROOT).parts)


def files(*suffixes: str) -> list[Path]:
    found = [p for d in SOURCES for p in sorted((ROOT / d).rglob("*"))
             if p.suffix in suffixes and p.is_file() and written(p)]
    return found + [p for p in (ROOT / "alembic" / "env.py",) if p.suffix in suffixes]


def test_every_design_citation_names_a_heading_of_the_design_page() -> None:
    known = anchors()
    cited, wrong = 0, []
    for path in files(".py", ".sql"):
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for m in CITATION.finditer(line):
                cited += 1
                if m.group(1) not in known:
                    wrong.append(f"{path.relative_to(ROOT)}:{n}: design.md#{m.group(1)}")
    assert cited >= 100, f"only {cited} citations of design.md found: did the pattern or the paths change?"
    assert not wrong, "no such heading in docs/manual/design.md:\n" + "\n".join(wrong)


def test_python_comments_and_docstrings_cite_the_design_page_not_the_tracker() -> None:
    found = []
    for path in files(".py"):
        if path.resolve() == Path(__file__).resolve():
            continue
        source = path.read_text()
        texts: list[tuple[int, str]] = []
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False)
                if doc is not None:
                    texts.append((node.body[0].lineno, doc))
        texts += [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type == tokenize.COMMENT]
        found += [f"{path.relative_to(ROOT)}:{n}: {m.group(0)}" for n, text in texts for m in TRACKER.finditer(text)]
    assert not found, "cite docs/manual/design.md (design.md#<anchor>) instead:\n" + "\n".join(found)
