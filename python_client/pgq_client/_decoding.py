"""JSON values decoded one at a time: a value Python cannot decode spoils only its own row.

psycopg decodes a result's ``jsonb`` columns while it reads the rows, so one
value that Python's ``json`` refuses (an integer of more than 4,300 digits:
``{"n": 1e4300}`` is stored as one) raises for the whole result. For a claim
that is after the claim committed: every job of the batch stayed claimed,
unseen, until its lease ran out, and each reclaim charged all of them a crash.

:func:`decode_each` gives a cursor a ``jsonb`` loader that wraps the one the
connection would use (so ``psycopg.types.json.set_json_loads`` still applies)
and turns a value it cannot decode into an :class:`~pgq_client.records.UndecodablePayload`
naming the error. Only that cursor is changed, never the caller's connection.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from psycopg.abc import Buffer
from psycopg.adapt import Loader
from psycopg.pq import Format

from ._error_text import described
from .records import UndecodablePayload


class _Tolerant:
    """Marks the loaders made by :func:`_tolerant` (so a cursor's is never wrapped twice)."""


@lru_cache(maxsize=32)
def _tolerant(base: type[Loader]) -> type[Loader]:
    """A subclass of the jsonb loader ``base`` whose ``load`` never raises for a bad value."""

    class Tolerant(base, _Tolerant):  # type: ignore[valid-type, misc]
        def load(self, data: Buffer) -> Any:
            try:
                return super().load(data)
            except Exception as exc:  # noqa: BLE001 - ValueError, RecursionError, a custom loads' own
                return UndecodablePayload(f"Python cannot decode this payload ({len(data):,} bytes of JSON):"
                                          f" {described(exc)}")

    Tolerant.__name__ = Tolerant.__qualname__ = f"Tolerant{base.__name__}"
    return Tolerant


def decode_each(cursor: Any) -> None:
    """Make ``cursor`` decode each ``jsonb`` value on its own (see the module's text)."""
    adapters = cursor.adapters
    info = adapters.types.get("jsonb")
    if info is None:
        return
    for fmt in (Format.TEXT, Format.BINARY):
        base = adapters.get_loader(info.oid, fmt)
        if base is not None and not issubclass(base, _Tolerant):
            adapters.register_loader(info.oid, _tolerant(base))
