"""Clean-machine helpers (the fixtures are in conftest.py): the sdist and wheel built as a release
would build them, and fresh virtualenvs outside the checkout with nothing but what pip installs.

* ``dist`` (session): ``python -m build`` of python_client/ into a temporary folder (the wheel is
  built from the sdist, as the tool does by default), so the tests see what a user downloads.
* ``clean_venv(python, *requirements)``: a new virtualenv in a temporary folder, made by that
  interpreter, with the requirements pip-installed (the wheel given by its path, extras and all).
* ``PYTHONS``: the CPython versions the clean-machine tests run on (3.10 and 3.13, found under
  pyenv or on PATH); a missing one is skipped with a message naming the ones that ran.

The commands run with an environment that hides the checkout: no PYTHONPATH, no PGQ_ALEMBIC_INI,
the project's .venv off PATH, and the current directory a temporary folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WANTED = ("3.10", "3.13")


def find_python(version: str) -> Path | None:
    """CPython <version>: pyenv's newest patch release of it, else python<version> on PATH, if it runs."""
    roots = [os.environ.get("PYENV_ROOT", ""), str(Path.home() / ".pyenv")]
    candidates: list[Path] = []
    for root in filter(None, roots):
        found = sorted(Path(root, "versions").glob(f"{version}.*/bin/python{version}"),
                       key=lambda p: [int(x) for x in p.parts[-3].split(".") if x.isdigit()])
        candidates.extend(reversed(found))
    on_path = shutil.which(f"python{version}")
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        done = subprocess.run([str(candidate), "-c", "import venv, ensurepip"], capture_output=True)
        if done.returncode == 0:
            return candidate
    return None


PYTHONS = {v: find_python(v) for v in WANTED}


def python_or_skip(version: str) -> Path:
    found = PYTHONS[version]
    if found is None:
        ran = [v for v, p in PYTHONS.items() if p is not None] or ["none"]
        pytest.skip(f"CPython {version} is not on this machine (no pyenv version, no python{version} on PATH);"
                    f" the clean-machine tests ran on: {', '.join(ran)}")
    return found


@dataclass(frozen=True)
class Dist:
    sdist: Path
    wheel: Path

    def wheel_files(self) -> dict[str, str]:
        """sha256 of every file in the wheel, by its path in the wheel."""
        with zipfile.ZipFile(self.wheel) as zf:
            return {n: hashlib.sha256(zf.read(n)).hexdigest() for n in zf.namelist() if not n.endswith("/")}


def build_dist(out: Path) -> Dist:
    """``python -m build`` of python_client/ into out (the session fixture ``dist`` in tests/conftest.py)."""
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT / "python_client")],
                          capture_output=True, text=True, cwd=out)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    output = done.stdout + done.stderr
    assert "absent from the `packages` configuration" not in output, "setuptools warns about package data folders"
    (sdist,), (wheel,) = out.glob("*.tar.gz"), out.glob("*.whl")
    leftovers = [p for p in ("pgq_client/alembic", "pgq_client/alembic.ini", "LICENSE")
                 if (ROOT / "python_client" / p).exists()]
    assert not leftovers, f"the build left copies in the checkout: {leftovers}"
    return Dist(sdist=sdist, wheel=wheel)


def clean_env(venv: Path, **extra: str) -> dict[str, str]:
    """The environment of a user's shell with only this virtualenv activated."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PGQ_ALEMBIC_INI", "VIRTUAL_ENV", "PYTHONHOME")}
    project_bins = {str(ROOT / ".venv" / "bin"), str(ROOT / ".venv-bench" / "bin")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p not in project_bins]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv)
    env["COLUMNS"] = "200"
    env.update(extra)
    return env


@dataclass
class Venv:
    path: Path
    home: Path  # the current directory for commands: a folder outside the checkout

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def run(self, *args: str | Path, timeout: float = 300, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        command = [str(a) for a in args]
        if not Path(command[0]).is_absolute():
            command[0] = str(self.path / "bin" / command[0])
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=clean_env(self.path, **(env or {})), cwd=cwd or self.home)

    def ok(self, *args: str | Path, **kwargs: object) -> str:
        done = self.run(*args, **kwargs)  # type: ignore[arg-type]
        assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    def pip_install(self, *requirements: str | Path) -> None:
        self.ok("pip", "install", "--quiet", *requirements, timeout=600)

    def installed(self) -> set[str]:
        import json

        listed = json.loads(self.ok("pip", "list", "--format", "json"))
        return {p["name"].lower().replace("_", "-") for p in listed} - {"pip", "setuptools", "wheel"}


@pytest.fixture
def clean_venv(tmp_path: Path) -> Callable[..., Venv]:
    def make(python: Path | str = sys.executable, *requirements: str | Path) -> Venv:
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        path = tmp_path / f"venv-{Path(python).name}"
        subprocess.run([str(python), "-m", "venv", str(path)], check=True, capture_output=True)
        venv = Venv(path=path, home=home)
        if requirements:
            venv.pip_install(*requirements)
        assert ROOT not in path.parents and ROOT not in home.parents
        return venv

    return make


def with_extras(wheel: Path, *extras: str) -> str:
    """A pip requirement for the wheel file with extras: 'pgq-client[cli] @ file:///...whl'."""
    return f"pgq-client[{','.join(extras)}] @ {wheel.as_uri()}" if extras else str(wheel)


@pytest.fixture
def empty_database(new_database: Callable[[], str]) -> Iterator[str]:
    """A new, empty database (no pgq in it) on the test server."""
    yield new_database()
