"""The dashboard over several databases: an index of them, and each database's dashboard under /db/<name>/.

    pgq dashboard --database-url postgresql:///shop --database-url postgresql:///billing

Each database gets the whole single-database dashboard (its own pool, sessions
and CSRF tokens; its cookies are scoped to its path), mounted at
``/db/<name>/`` where name is the database's label (its dbname where that tells
the databases apart, see ``worker/_databases.py``). The index at ``/`` lists
them with their totals of waiting, running and dead jobs, and says which one
does not answer: one database being down never takes the others' pages down.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import psycopg
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route

from .. import observe
from ._app import REFRESH_SECONDS, SECURITY_HEADERS, Dashboard, make_app

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def slug(label: str) -> str:
    """A database's label as one URL path segment (host:port/dbname -> host-port-dbname)."""
    return _UNSAFE.sub("-", label).strip("-") or "db"


def totals(dash: Dashboard) -> dict[str, Any]:
    """One database's line on the index: its active queues and their waiting, running and dead jobs."""
    try:
        rows = dash.read(lambda conn, feats: observe.queues(conn))
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return {"up": False, "error": first}
    return {"up": True, "queues": len(rows), **{k: sum(int(r.get(k) or 0) for r in rows)
                                                 for k in ("waiting", "running", "dead")}}


def make_several_app(dashes: Mapping[str, Dashboard]) -> Starlette:
    """The index and one mounted dashboard per database (label -> its Dashboard)."""
    mounted = {label: (slug(label), make_app(dash)) for label, dash in dashes.items()}
    first = next(iter(dashes.values()))

    async def index(request: Request) -> Response:
        refused = first.guard.refuse_host(request.headers.get("host"))
        if refused is not None:
            return PlainTextResponse(refused, status_code=400)
        lines = []
        for label, dash in dashes.items():
            lines.append({"label": label, "path": mounted[label][0], **await run_in_threadpool(totals, dash)})
        # Rendered without dash.render: the index has no actions, so no session cookie (a cookie for "/"
        # would reach every database's pages beside their own, scoped to /db/<name>).
        page = {"request": request, "base": request.scope.get("root_path", "").rstrip("/"), "csrf": "",
                "flash": None, "read_only": first.read_only, "refresh": REFRESH_SECONDS, "database": None,
                "home": "", "nav": "", "databases": lines}
        response: Response = first.templates.TemplateResponse(request, "databases.html", page)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        # A mounted app's own lifespan is not run by Starlette: open every database's pool here.
        async with AsyncExitStack() as stack:
            for _, sub in mounted.values():
                await stack.enter_async_context(sub.router.lifespan_context(sub))
            yield

    routes = [Route("/", index, name="databases"),
              *[Mount(f"/db/{path}", app=sub) for path, sub in mounted.values()]]
    return Starlette(routes=routes, lifespan=lifespan)
