#!/usr/bin/env python3
"""Build the documentation site (`make docs`) from docs/ and the reports.

    scripts/build_docs.py [--serve]

The build assembles a source tree in ``.docs-build/src`` and runs ``mkdocs build --strict``
(warnings are errors):

* ``docs/``: the manual (``docs/manual/*.md``, one page per topic), the committed SQL reference
  (``docs/reference/sql.md``, generated from the catalog by scripts/gen_sql_reference.py, kept
  current by a test), the screenshots;
* the Python API reference, generated from pgq_client's signatures and docstrings
  (scripts/gen_python_reference.py);
* the reports kept at the top of the repository (BENCHMARKS.md, RELIABILITY.md,
  ARCHITECTURE.md, CHANGELOG.md) and the charts they show.

The manual's navigation is made from the folder: every ``docs/manual/*.md`` is listed under its
first ``# `` heading, those named in MANUAL_ORDER first and in that order, any other page after
them by file name. A new page needs no edit here to be built; add its name to MANUAL_ORDER to
place it.

Links from those files to repository files that are not part of the site
(``sql/functions/claim.sql``, tests, scripts) become plain code spans, so the
strict build fails only on links that should work.
"""

from __future__ import annotations

import json
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
ASSET_DIRS = ("bench/charts",)
# The manual's reading order; pages not named here follow, by file name.
MANUAL_ORDER = (
    "getting-started.md", "sql-api.md", "crash-recovery.md", "flow-control.md", "schedules.md",
    "python-client.md", "transactional-enqueue.md", "worker-and-cli.md", "workers.md",
    "workflows.md", "workflows-results.md", "other-languages.md", "pgbouncer.md", "testing.md",
    "operating.md", "administration.md", "upgrading.md", "restarts-and-failover.md",
    "several-databases.md", "wake-ups.md", "short-claims.md", "reliability.md", "benchmarks.md",
    "design.md",
)
LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


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


def manual_nav(manual: Path) -> str:
    """The nav entries of docs/manual/: MANUAL_ORDER first, then the other pages by name."""
    pages = sorted(manual.glob("*.md"), key=lambda p: (
        MANUAL_ORDER.index(p.name) if p.name in MANUAL_ORDER else len(MANUAL_ORDER), p.name))
    entries = []
    for page in pages:
        title = next((ln[2:].strip() for ln in page.read_text().splitlines() if ln.startswith("# ")), page.stem)
        entries.append(f"      - {json.dumps(title)}: manual/{page.name}")
    return "\n".join(entries)


def assemble() -> None:
    shutil.rmtree(BUILD, ignore_errors=True)
    shutil.copytree(ROOT / "docs", SRC)
    for d in ASSET_DIRS:
        if (ROOT / d).is_dir():
            shutil.copytree(ROOT / d, SRC / d)
    for report in REPORTS:
        if (ROOT / report).is_file():
            shutil.copyfile(ROOT / report, SRC / report)
    (SRC / "reference").mkdir(exist_ok=True)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_python_reference.py"),
                    str(SRC / "reference" / "python.md")], check=True)
    site_files = {str(p.relative_to(SRC)) for p in SRC.rglob("*") if p.is_file()}
    for page in SRC.rglob("*.md"):
        page.write_text(relink(page.read_text(), page, site_files))
    (BUILD / "nav.yml").write_text(manual_nav(SRC / "manual") + "\n")


def mkdocs_config() -> Path:
    """mkdocs.yml with the manual's pages filled into the nav."""
    config = (ROOT / "mkdocs.yml").read_text().replace("  - Manual: '@manual@'",
                                                      "  - Manual:\n" + (BUILD / "nav.yml").read_text().rstrip("\n"))
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
