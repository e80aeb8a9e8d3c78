"""Finding a handler by its "module:function" name and deciding how to call it."""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from typing import Any


class HandlerNotFound(Exception):
    """The "module:function" reference does not name a callable."""


def load(ref: str, *, accept: type | None = None) -> Any:
    """Import ``package.module:function`` (or ``module:object.method``); the current directory is importable."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise HandlerNotFound(f"handler must look like module:function, got {ref!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise HandlerNotFound(f"cannot import module {module_name!r}: {exc}") from exc
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as exc:
            raise HandlerNotFound(f"module {module_name!r} has no attribute {attr!r}") from exc
    if not callable(target) and not (accept is not None and isinstance(target, accept)):
        raise HandlerNotFound(f"{ref} is not callable")
    return target


def wants_context(handler: Callable[..., Any]) -> bool:
    """True if the handler takes (payload, job), False if it takes (payload) alone."""
    try:
        params = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2


def is_async(handler: Callable[..., Any]) -> bool:
    """True for ``async def`` handlers (also behind functools.partial or a __call__ method)."""
    target = handler
    while hasattr(target, "func"):
        target = target.func  # functools.partial
    if inspect.iscoroutinefunction(target):
        return True
    call = None if inspect.isfunction(target) or inspect.ismethod(target) else type(target).__dict__.get("__call__")
    return call is not None and inspect.iscoroutinefunction(call)
