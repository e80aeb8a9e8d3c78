"""pgq_client's PEP 517 build backend: setuptools, plus pgq's migrations inside the package.

pgq's Alembic environment lives at the top of the repository (``alembic.ini``
and ``alembic/``: env.py, the revisions, their frozen SQL snapshots and
SHA256SUMS), where ``make verify`` checks it. A wheel must carry it, so that
``pip install pgq-client`` and then ``pgq migrate`` works on a machine that has
never seen the repository. This backend copies both, byte for byte, into the
package as ``pgq_client/alembic.ini`` and ``pgq_client/alembic/`` for the
duration of a build (the LICENSE and README.md too, which the metadata names), lets setuptools build, and removes the
copy again (the checkout keeps one copy: the one the checks cover).

An sdist already holds the copy (it was made from a checkout), so a wheel
built from an unpacked sdist, which is what ``python -m build`` does, takes
it as it is. tests/packaging/ compares the checksums of the wheel's files
with the repository's.

Editable installs get no copy: ``pgq_client.migrations`` finds the
repository's own ``alembic/`` beside the package.
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools

PROJECT = Path(__file__).resolve().parents[1]  # python_client/
REPOSITORY = PROJECT.parent
# What the backend copies in, as (source in the repository, target in python_client/).
COPIES = (
    ("alembic.ini", "pgq_client/alembic.ini"),
    ("alembic", "pgq_client/alembic"),
    ("LICENSE", "LICENSE"),
    ("README.md", "README.md"),
)
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")

# alembic/ is package data, not a package (its folders have no __init__.py and names like 0001):
# setuptools' advice to list pgq_client.alembic.* as packages does not apply.
warnings.filterwarnings("ignore", message=r"(?s).*Package 'pgq_client\.alembic[.a-z0-9]*' is absent")


@contextmanager
def repository_files(only: tuple[str, ...] | None = None) -> Iterator[None]:
    """pgq_client/alembic(.ini), LICENSE and README.md present while setuptools works.

    What this call copied in is removed afterwards; what was there already (an sdist's) stays.
    """
    made: list[Path] = []
    try:
        for source_name, target_name in COPIES:
            if only is not None and source_name not in only:
                continue
            target = PROJECT / target_name
            if target.exists():  # an unpacked sdist: the copy came with it
                continue
            source = REPOSITORY / source_name
            if not source.exists():
                raise FileNotFoundError(
                    f"{source} is missing: build pgq_client from a checkout of pgq or from its sdist"
                )
            made.append(target)
            if source.is_dir():
                shutil.copytree(source, target, ignore=IGNORE)
            else:
                shutil.copy2(source, target)
        yield
    finally:
        for target in made:
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink(missing_ok=True)


Settings = Mapping[str, Any] | None


def get_requires_for_build_sdist(config_settings: Settings = None) -> list[str]:
    with repository_files():
        return list(_setuptools.get_requires_for_build_sdist(config_settings))


def get_requires_for_build_wheel(config_settings: Settings = None) -> list[str]:
    with repository_files():
        return list(_setuptools.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings: Settings = None) -> list[str]:
    with repository_files():
        return list(_setuptools.get_requires_for_build_editable(config_settings))


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Settings = None) -> str:
    with repository_files():
        return str(_setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings))


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Settings = None) -> str:
    with repository_files():
        return str(_setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings))


def build_sdist(sdist_directory: str, config_settings: Settings = None) -> str:
    with repository_files():
        return str(_setuptools.build_sdist(sdist_directory, config_settings))


def build_wheel(wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None) -> str:
    with repository_files():
        return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_editable(
    wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None
) -> str:
    # No copy of alembic/ in the package: an editable install uses the checkout's own.
    with repository_files(only=("LICENSE", "README.md")):
        return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))

