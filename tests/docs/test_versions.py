"""The version and the schema revision the docs print are the code's: one source for each.

The version is written once, in ``pgq_client/_version.py``; the schema revision is Alembic's head.
The docs name them only in ``pgq --version``'s own form, ``pgq X (pgq-client X, schema revision N)``,
so this test can find every mention and compare it with the code (and a release is a heading of
CHANGELOG.md). After a new revision or a release: change the lines this test names.
"""

from __future__ import annotations

import re
from pathlib import Path

from pgq_client import __version__, migrations

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
VERSION_LINE = re.compile(r"pgq (\S+) \(pgq-client (\S+), schema revision (\d{4})\)")


def test_every_version_line_of_the_docs_names_the_code_version_and_head_revision() -> None:
    head = migrations.head()
    found, wrong = 0, []
    for doc in DOCS:
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            for m in VERSION_LINE.finditer(line):
                found += 1
                if m.groups() != (__version__, __version__, head):
                    wrong.append(f"{doc.relative_to(ROOT)}:{n}: {m.group(0)}")
    assert found >= 2, "the README and docs/manual/upgrading.md show `pgq --version`'s output"
    assert not wrong, f"should say pgq {__version__} (pgq-client {__version__}, schema revision {head}): {wrong}"


def test_the_version_is_a_release_of_the_changelog_and_unreleased_comes_first() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", changelog, flags=re.M)
    assert releases and releases[0] == ("Unreleased", ""), "## [Unreleased] stays the first section"
    dated = releases[1:]
    assert all(date for _, date in dated), f"every release has a date: {dated}"
    assert [d for _, d in dated] == sorted((d for _, d in dated), reverse=True), "newest release first"
    assert __version__ in [v for v, _ in dated], f"pgq_client/_version.py says {__version__}: no such release"


def test_the_cli_prints_the_same_version_line() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pgq_client", "--version"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    m = VERSION_LINE.search(done.stdout)
    assert m and m.groups() == (__version__, __version__, migrations.head()), done.stdout
