"""The checkout's editable install (make deps) is one a type checker can follow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from packaging_support import ROOT


def test_the_editable_install_is_a_plain_path_entry_that_mypy_follows(tmp_path: Path) -> None:
    site = Path(subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (pth,) = site.glob("__editable__.pgq_client-*.pth")
    assert pth.read_text().strip() == str(ROOT / "python_client"), "a path, not setuptools' import hook"
    assert not list(site.glob("__editable___pgq_client_*_finder.py"))
    program = tmp_path / "uses_pgq.py"
    program.write_text("import pgq_client\nfrom pgq_client import migrations\n"
                       "reveal_type(pgq_client.enqueue)\nreveal_type(migrations.version_location())\n")
    done = subprocess.run([str(Path(sys.executable).with_name("mypy")), "--strict", "--no-incremental", str(program)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert "def (conn: psycopg" in done.stdout and "pathlib.Path" in done.stdout, done.stdout + done.stderr
    assert "error" not in done.stdout.replace("note:", ""), done.stdout
