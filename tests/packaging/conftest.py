"""Fixtures of the clean-machine tests; the helpers are in packaging_support.py (``dist``, the built
sdist and wheel, is a session fixture of tests/conftest.py: the docs-blocks test installs it too)."""

from packaging_support import clean_venv, empty_database

__all__ = ["clean_venv", "empty_database"]
