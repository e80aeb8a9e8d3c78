"""What the built distributions hold: pgq's migrations byte for byte, one version, the licence."""

from __future__ import annotations

import email
import hashlib
import tarfile
import zipfile
from pathlib import Path

from packaging_support import ROOT, Dist
from pgq_client._version import __version__


def repository_migrations() -> dict[str, str]:
    """sha256 of alembic.ini and every file of alembic/ (caches aside), by their path inside pgq_client/."""
    files = {"alembic.ini": ROOT / "alembic.ini"}
    for path in sorted((ROOT / "alembic").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[str(path.relative_to(ROOT))] = path
    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items()}


def test_the_wheel_carries_alembic_byte_identical_to_the_repository(dist: Dist) -> None:
    wheel = {name.removeprefix("pgq_client/"): digest for name, digest in dist.wheel_files().items()
             if name == "pgq_client/alembic.ini" or name.startswith("pgq_client/alembic/")}
    expected = repository_migrations()
    assert len(expected) > 10 and any(n.startswith("alembic/versions/") for n in expected)
    assert set(wheel) == set(expected), f"missing: {set(expected) - set(wheel)}; extra: {set(wheel) - set(expected)}"
    changed = [name for name in expected if wheel[name] != expected[name]]
    assert not changed, f"differ from the repository's: {changed}"


def test_the_sdist_carries_the_same_migrations_and_its_build_backend(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as tf:
        top = tf.getnames()[0].split("/")[0]
        members = {m.name.removeprefix(f"{top}/"): m for m in tf.getmembers() if m.isfile()}
        sdist = {name.removeprefix("pgq_client/"): hashlib.sha256(tf.extractfile(m).read()).hexdigest()  # type: ignore[union-attr]
                 for name, m in members.items() if name.startswith(("pgq_client/alembic/", "pgq_client/alembic.ini"))}
    assert sdist == repository_migrations()
    assert {"build-backend/pgq_build.py", "pyproject.toml", "LICENSE", "README.md"} <= set(members)


def test_one_version_the_licence_and_project_urls_in_the_metadata(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(zf.read(name))
        licence = zf.read(name.replace("METADATA", "licenses/LICENSE"))
        version_file = zf.read("pgq_client/_version.py").decode()
    assert meta["Name"] == "pgq-client" and meta["Version"] == __version__
    assert dist.wheel.name == f"pgq_client-{__version__}-py3-none-any.whl"
    assert f'__version__ = "{__version__}"' in version_file
    assert meta["License-Expression"] == "Apache-2.0"
    assert licence == (ROOT / "LICENSE").read_bytes()
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Changelog", "Issues"} <= set(urls)
    extras = set(meta.get_all("Provides-Extra") or [])
    assert {"binary", "worker", "migrations", "cli", "sqlalchemy", "testing", "pydantic", "all"} <= extras
    assert [r for r in meta.get_all("Requires-Dist") or [] if "extra ==" not in r] == ["psycopg>=3.2"]


def test_the_version_is_written_once(dist: Dist) -> None:
    """pyproject.toml reads it from pgq_client/_version.py; no other file of the package spells it."""
    pyproject = (ROOT / "python_client" / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and __version__ not in pyproject
    spelled = [p.name for p in (ROOT / "python_client" / "pgq_client").rglob("*.py")
               if f'"{__version__}"' in p.read_text()]
    assert spelled == ["_version.py"]
    assert Path(dist.wheel).stat().st_size > 0
