"""The ``pgq worker`` options, generated from :class:`~pgq_client.worker.WorkerOptions`' declarations."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import fields
from typing import Annotated, Any

import typer

from ..worker.options import WorkerOptions


def _option_type(f: Any) -> Any:
    """The flag's type, always optional: a flag not given is None, so it never hides an App's value."""
    meta = f.metadata
    if meta["cli_type"] is not None:
        return meta["cli_type"] | None
    return {"int": int | None, "int | None": int | None, "float": float | None, "bool": bool | None,
            "str": str | None}[str(f.type)]


def worker_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` with one typer option per WorkerOptions field (``cli=True``), passed on as keyword arguments.

    Every flag defaults to None and only the flags given are passed on: ``pgq worker myapp:app``
    then runs with the App's options and ``pgq worker myapp:app --concurrency 2`` overrides them,
    exactly as ``app.run_worker()`` and ``app.run_worker(concurrency=2)`` do (WorkerOptions' precedence).
    """
    signature = inspect.signature(command, eval_str=True)
    params = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    generated = []
    for f in fields(WorkerOptions):
        meta = f.metadata
        if not meta["cli"]:
            continue
        flag = meta["flag"] or "--" + f.name.replace("_", "-")
        shown = meta["doc_default"] if meta["doc_default"] is not None else str(f.default)
        text = meta["help"].replace("`", "") + f" (default: {shown.replace('`', '')})"
        info = typer.Option(flag, help=text, min=meta["min"], max=meta["max"], show_default=False)
        generated.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                           annotation=Annotated[_option_type(f), info]))
    names = {f.name for f in fields(WorkerOptions)}

    def run(**given: Any) -> None:
        options = {k: v for k, v in given.items() if k in names and v is not None}
        rest = {k: v for k, v in given.items() if k not in names}
        command(**rest, **options)

    run.__name__ = command.__name__
    run.__doc__ = command.__doc__
    run.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if p.default is not p.empty else p
                    for p in params] + generated)
    run.__annotations__ = {p.name: p.annotation for p in run.__signature__.parameters.values()}  # type: ignore[attr-defined]
    return run
