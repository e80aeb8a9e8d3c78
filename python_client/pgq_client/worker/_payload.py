"""The optional typed-payload hook: a pydantic model or any callable turns the JSON payload into an object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from .._error_text import described
from ..records import UndecodablePayload

Converter = Callable[[Any], Any]


class InvalidPayload(Exception):
    """The payload hook rejected a payload, or Python could not decode it; the job is failed as not
    retryable (dead at once)."""


def converter(hook: Any) -> Converter | None:
    """A function payload -> object for a pydantic model class (``model_validate``) or a callable."""
    if hook is None:
        return None
    validate = getattr(hook, "model_validate", None)
    if isinstance(hook, type) and callable(validate):
        return cast(Converter, validate)  # pydantic v2 model
    if callable(hook):
        return cast(Converter, hook)
    raise TypeError(f"payload hook must be a pydantic model or a callable, got {hook!r}")


def convert(convert_fn: Converter | None, payload: Any) -> Any:
    """Apply the hook; any error it raises becomes InvalidPayload with the reason.

    A payload Python could not decode (:class:`~pgq_client.records.UndecodablePayload`)
    is InvalidPayload too, with or without a hook: its job is dead at once, and only it.
    """
    if isinstance(payload, UndecodablePayload):
        raise InvalidPayload(f"invalid payload: {payload.reason}")
    if convert_fn is None:
        return payload
    try:
        return convert_fn(payload)
    except Exception as exc:  # the hook's own error type is unknown (ValidationError, ValueError, ...)
        raise InvalidPayload(f"invalid payload: {described(exc)}") from exc
