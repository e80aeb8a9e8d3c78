"""How payloads become JSON: the standard types JSON lacks, and a hook for your own.

Every enqueue of the package (``enqueue``, ``enqueue_many``, their ``aio`` twins, ``App`` tasks,
``pgq_client.sqlalchemy``) encodes the payload with :func:`dumps`. Plain JSON values go through
as they are; the types ``json`` refuses become:

=================================  ==============================================================
``datetime``, ``date``, ``time``   ISO 8601 text (``"2026-12-01T09:30:00+00:00"``)
``Decimal``                        its exact text (``"12.50"``: a JSON number would be a float)
``UUID``                           its text form
``Enum``                           its value (encoded in turn)
``set``, ``frozenset``             a list
a pydantic model                   ``model_dump(mode="json")``
a dataclass instance               its fields as an object (``dataclasses.asdict``)
=================================  ==============================================================

The handler gets decoded JSON back, so those arrive as strings (a pydantic ``payload=`` model
turns them into ``datetime``/``Decimal``/``UUID`` again). Anything else raises ``TypeError``
naming the type and this module, before anything is sent.

Your own types: :func:`register` an encoder for a class (it applies to subclasses too; the
nearest class in the MRO wins), e.g.::

    from pgq_client import payloads

    payloads.register(Money, lambda m: {"amount": str(m.amount), "currency": m.currency})

or hand :func:`dumps` a ``default=`` of your own for one call. Registering is process-wide, like
psycopg's adapters: do it once at import time of the module that defines the type.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from typing import Any
from uuid import UUID

Encoder = Callable[[Any], Any]

_ENCODERS: dict[type, Encoder] = {}


def register(cls: type, encoder: Encoder) -> None:
    """Encode instances of cls (and its subclasses) with encoder: it returns something JSON can hold."""
    if not isinstance(cls, type):
        raise TypeError(f"register() needs a class, got {cls!r}")
    _ENCODERS[cls] = encoder


def unregister(cls: type) -> None:
    """Forget the encoder registered for cls (KeyError if there is none)."""
    del _ENCODERS[cls]


def _iso(value: date | time) -> str:
    return value.isoformat()


def _listed(value: set[Any] | frozenset[Any]) -> list[Any]:
    # In a stable order, so that equal sets give equal JSON text.
    return sorted(value, key=repr)


_BUILTIN: tuple[tuple[type, Encoder], ...] = (
    (datetime, _iso),  # before date: a datetime is a date
    (date, _iso),
    (time, _iso),
    (Decimal, str),
    (UUID, str),
    (Enum, lambda e: e.value),
    (set, _listed),
    (frozenset, _listed),
)


def default(value: Any) -> Any:
    """``json.dumps``'s ``default``: your registered encoders first, then the types listed above."""
    for cls in type(value).__mro__:
        encoder = _ENCODERS.get(cls)
        if encoder is not None:
            return encoder(value)
    for cls, encoder in _BUILTIN:
        if isinstance(value, cls):
            return encoder(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # pydantic v2, without importing it
        return dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(
        f"a payload holds a {type(value).__module__}.{type(value).__qualname__}, which JSON cannot hold:"
        f" convert it, or pgq_client.payloads.register({type(value).__qualname__}, encoder)"
    )


def dumps(payload: Any, *, default: Encoder | None = None) -> str:
    """The payload as JSON text (the ``dumps`` psycopg's ``Jsonb`` gets from pgq's enqueues)."""
    return json.dumps(payload, default=default or _default)


_default = default
