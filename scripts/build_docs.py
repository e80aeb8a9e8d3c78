#!/usr/bin/env python3
"""Build the documentation site (`make docs`) from what the repository already says.

    scripts/build_docs.py [--serve]

Nothing in the site is written twice. The build assembles a source tree in
``.docs-build/src`` and runs ``mkdocs build --strict`` (warnings are errors):

* the README, cut into one page per ``## `` section (the README stays the
  single manual a reader of the repository sees first);
* ``docs/`` (the guides, written for the site; screenshots);
* the SQL API reference, generated from ``sql/`` (scripts/gen_sql_reference.py), and the Python
  API reference, generated from pgq_client's signatures and docstrings
  (scripts/gen_python_reference.py);
* the reports kept at the top of the repository (BENCHMARKS.md,
  RELIABILITY.md, ARCHITECTURE.md, CHANGELOG.md) and the charts they show.

Links from those files to repository files that are not part of the site
(``sql/functions/claim.sql``, tests, scripts) become plain code spans, so the
strict build fails only on links that should work.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / ".docs-build"
SRC = BUILD / "src"
REPORTS = ("BENCHMARKS.md", "RELIABILITY.md", "ARCHITECTURE.md", "CHANGELOG.md")
ASSET_DIRS = ("bench/charts", "docs/screenshots")
LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


def split_readme(text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(the part before the first section, [(title, file name, body)])."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    head, sections = parts[0], []
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        title = title.strip()
        # The README marks where each issue's section starts; the site needs no such marks.
        body = re.sub(r"^<!--.*?-->\s*$", "", body, flags=re.M)
        sections.append((title, f"manual/{slug(title)}.md", f"# {title}\n{body}"))
    return head, sections


def headings(markdown: str) -> set[str]:
    """The anchors mkdocs gives the headings of a page (Python-Markdown's toc slugify)."""
    from markdown.extensions.toc import slugify

    return {slugify(h.strip(), "-") for h in re.findall(r"^#{1,6} (.+)$", markdown, flags=re.M)}


def relink(text: str, page: Path, site_files: set[str]) -> str:
    """Keep links to pages and assets of the site; turn links to other repository files into code spans."""

    def fix(m: re.Match[str]) -> str:
        label, target = m.group(1), m.group(2)
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve()
        try:
            rel = str(resolved.relative_to(SRC.resolve()))
        except ValueError:
            rel = ""
        if rel in site_files:
            return m.group(0)
        return f"{label} (`{path}`)" if label.strip("`") != path else f"`{path}`"

    return LINK.sub(fix, text)


def assemble() -> None:
    shutil.rmtree(BUILD, ignore_errors=True)
    shutil.copytree(ROOT / "docs", SRC, ignore=shutil.ignore_patterns("screenshots"))
    for d in ASSET_DIRS:
        if (ROOT / d).is_dir():
            shutil.copytree(ROOT / d, SRC / d)
    head, sections = split_readme((ROOT / "README.md").read_text())
    (SRC / "manual").mkdir(parents=True, exist_ok=True)
    for _, name, body in sections:
        (SRC / name).write_text(body)
    for report in REPORTS:
        if (ROOT / report).is_file():
            shutil.copyfile(ROOT / report, SRC / report)
    (SRC / "reference").mkdir(exist_ok=True)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_sql_reference.py"), str(SRC / "reference" / "sql.md")],
                   check=True)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_python_reference.py"),
                    str(SRC / "reference" / "python.md")], check=True)
    # README-relative links (BENCHMARKS.md, bench/charts/...) are repository-root relative; the
    # manual pages sit one folder down. In-README anchors (#pgbouncer) point at another page now.
    anchors = {a: name for _, name, body in sections for a in headings(body)}
    for _, name, _ in sections:
        page = SRC / name
        text = re.sub(r"\]\((?![a-z]+:|#|/)([^)\s]+)\)", r"](../\1)", page.read_text())
        own = headings(text)

        def elsewhere(m: re.Match[str], own: set[str] = own) -> str:
            anchor = m.group(1)
            target = anchors.get(anchor)
            if anchor in own or target is None:
                return m.group(0)
            return f"]({Path(target).name}#{anchor})"

        page.write_text(re.sub(r"\]\(#([^)\s]+)\)", elsewhere, text))
    site_files = {str(p.relative_to(SRC)) for p in SRC.rglob("*") if p.is_file()}
    for page in SRC.rglob("*.md"):
        page.write_text(relink(page.read_text(), page, site_files))
    nav = "\n".join(f"      - {title}: {name}" for title, name, _ in sections)
    (BUILD / "nav.yml").write_text(nav + "\n")


def mkdocs_config() -> Path:
    """mkdocs.yml with the README's sections filled into the nav (their titles change with the README)."""
    config = (ROOT / "mkdocs.yml").read_text().replace("      - README: '@readme-sections@'",
                                                      (BUILD / "nav.yml").read_text().rstrip("\n"))
    out = BUILD / "mkdocs.yml"
    config = config.replace("docs_dir: docs", f"docs_dir: {SRC}")
    config = config.replace("site_dir: site", f"site_dir: {BUILD / 'site'}")
    out.write_text(config)
    return out


def main() -> int:
    assemble()
    config = mkdocs_config()
    command = ["serve"] if "--serve" in sys.argv else ["build", "--strict"]
    mkdocs = Path(sys.executable).with_name("mkdocs")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([str(mkdocs), *command, "-f", str(config)], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
