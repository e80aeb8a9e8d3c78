"""Imports follow ARCHITECTURE.md's layers: a module imports only its own layer and the ones above it.

ARCHITECTURE.md lists the layers of pgq_client top-down (the thin client first, the test helpers
last): "Each layer imports only the ones above it in this list". This test reads every import of
every module of the package (function-level ones too: a lazy import is still a dependency) and
fails on one that points down the list, unless KNOWN lists it with the reason. A KNOWN entry that
no import uses any more fails too, so the list shrinks as the code is mended.

The package's ``__init__`` is the facade: it re-exports names from every layer lazily (its
``__getattr__``), so it is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "python_client" / "pgq_client"

# Top-down, as ARCHITECTURE.md draws them; each entry is a module or a subpackage of pgq_client.
LAYERS: list[tuple[str, set[str]]] = [
    ("thin client", {"_client", "aio", "records", "context", "sqlalchemy", "_queries", "payloads", "_version",
                     "_decoding", "_error_text"}),
    ("task registry", {"app", "graph"}),
    ("worker runtime", {"worker"}),
    ("monitoring", {"observe", "exporter", "tracing"}),
    ("dashboard", {"dashboard"}),
    ("migrations", {"migrations"}),
    ("command line", {"cli", "__main__"}),
    ("test helpers", {"testing"}),
]

# (importing module, imported module) -> why it is allowed for now. Mend the code, then drop the entry.
KNOWN: dict[tuple[str, str], str] = {
    ("app", "worker.options"): "App validates task settings with WorkerOptions/TaskSettings, declared in worker/",
    ("app", "worker"): "App.worker() / run_worker() build a Worker on demand (a lazy import)",
    ("app", "worker._lanes"): "App.lanes() and Task.lane() build the worker's Lane objects",
    ("app", "worker._handlers"): "a task's handler is wrapped by the worker's handler adapter",
    ("app", "worker._async_worker"): "App.run_worker_async() builds an AsyncWorker",
    ("app", "worker._databases"): "App(databases=...) checks its queue -> database map with the worker's rules",
    ("worker._async_worker", "tracing"): "the worker opens OpenTelemetry spans around handlers (otel extra)",
    ("worker._worker", "tracing"): "generated from worker/_async_worker.py",
}


def layer_of(module: str) -> int | None:
    top = module.split(".")[0]
    return next((i for i, (_, members) in enumerate(LAYERS) if top in members), None)


def imports_of(path: Path) -> list[str]:
    """The pgq_client modules a file imports, as dotted names inside the package."""
    rel = path.relative_to(PKG).with_suffix("")
    package = list(rel.parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            if node.module:
                found.append(".".join([*base, node.module]))
            else:
                found += [".".join([*base, alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pgq_client."):
            found.append(node.module.removeprefix("pgq_client."))  # type: ignore[union-attr]
        elif isinstance(node, ast.Import):
            found += [a.name.removeprefix("pgq_client.") for a in node.names if a.name.startswith("pgq_client.")]
    return found


def upward_imports() -> set[tuple[str, str]]:
    seen = set()
    for path in sorted(PKG.rglob("*.py")):
        module = ".".join(path.relative_to(PKG).with_suffix("").parts)
        if module == "__init__":
            continue
        mine = layer_of(module)
        for target in imports_of(path):
            theirs = layer_of(target)
            if mine is not None and theirs is not None and theirs > mine:
                seen.add((module, target))
    return seen


def test_every_module_of_the_package_has_a_layer() -> None:
    modules = {p.relative_to(PKG).parts[0].removesuffix(".py") for p in PKG.glob("*") if p.suffix == ".py" or
               (p.is_dir() and (p / "__init__.py").exists())}
    missing = sorted(m for m in modules - {"__init__"} if layer_of(m) is None)
    assert not missing, f"add them to LAYERS (and ARCHITECTURE.md's drawing): {missing}"


def test_no_layer_imports_a_lower_one() -> None:
    found = upward_imports()
    new = sorted(found - set(KNOWN))
    assert not new, f"imports from a lower layer (ARCHITECTURE.md): {new}"
    stale = sorted(set(KNOWN) - found)
    assert not stale, f"KNOWN entries no import uses any more (remove them): {stale}"


def test_the_check_sees_an_upward_import() -> None:
    """The reader of imports is not blind: the thin client importing the worker would be found."""
    assert layer_of("aio") == 0 and layer_of("worker._lanes") == 2 and layer_of("cli._commands") == 6
    assert ("app", "worker.options") in upward_imports()
