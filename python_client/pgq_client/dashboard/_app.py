"""The dashboard's ASGI app: pages that read through :mod:`pgq_client.observe`, and admin actions behind CSRF.

Pages are plain HTML from jinja2 templates (autoescaped), with the package's
own CSS and a few lines of JS (``static/``): no build step, nothing from a
CDN, and a Content-Security-Policy that allows only this origin. Reads run
in Starlette's thread pool on a small psycopg pool whose connections carry a
``statement_timeout``.

Who may act is the database's decision: the dashboard shows actions (pause,
resume, retry, cancel, bulk retry) only when its role may call those
functions (``pgq_admin``) and it was not started ``read_only``; a POST is
refused (403) otherwise. Every POST carries a CSRF token: an HMAC, under a
key made when the app starts, of a random cookie (``SameSite=Strict``,
``HttpOnly``) set with the first page.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
import psycopg
from psycopg_pool import ConnectionPool
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from .. import _queries as sql
from .. import observe
from ._svg import sparkline

HERE = Path(__file__).resolve().parent
COOKIE = "pgq_csrf"
FLASH = "pgq_flash"
PAGE_SIZE = 50
BULK_ROWS = 1000  # jobs per bulk click (q.retry_dead's max_rows)
SPARK_MINUTES = 60
LIVE = ("waiting", "held", "scheduled", "running")
FINISHED_RETRYABLE = ("dead", "cancelled")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self';"
                               " frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


class Dashboard:
    """The app's state: the pool, the CSRF key, the templates."""

    def __init__(self, database_url: str, *, read_only: bool = False, pool_size: int = 4,
                 query_timeout: float = 5.0) -> None:
        self.read_only = read_only
        self.query_timeout = timedelta(seconds=query_timeout)
        self.key = secrets.token_bytes(32)
        self.pool: ConnectionPool[Any] = ConnectionPool(
            database_url, min_size=1, max_size=pool_size, open=False, name="pgq-dashboard",
            kwargs={"autocommit": True, "application_name": "pgq-dashboard"}, configure=self._configure)
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")), autoescape=True,
                                 undefined=jinja2.StrictUndefined)
        self.templates = Jinja2Templates(env=env)
        env.filters["age"] = _age
        env.filters["when"] = _when
        env.filters["pretty"] = _pretty
        env.filters["excerpt"] = _excerpt
        env.filters["error_line"] = _error_line
        env.filters["cell"] = _cell

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        observe.bound(conn, self.query_timeout)

    # -- CSRF and flash messages -------------------------------------------------------------------

    def token(self, cookie: str) -> str:
        return hmac.new(self.key, cookie.encode(), hashlib.sha256).hexdigest()

    async def checked_form(self, request: Request) -> dict[str, str]:
        """The POSTed form if its CSRF token is this browser's; 403 otherwise."""
        form = await request.form()
        values = {k: v for k, v in form.items() if isinstance(v, str)}
        cookie = request.cookies.get(COOKIE, "")
        given = values.get("csrf", "")
        if not cookie or not given or not hmac.compare_digest(given, self.token(cookie)):
            raise HTTPException(403, "missing or wrong CSRF token: reload the page and try again")
        return values

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> Response:
        cookie = request.cookies.get(COOKIE) or secrets.token_urlsafe(24)
        flash = request.cookies.get(FLASH)
        base = request.scope.get("root_path", "").rstrip("/")
        page = {"request": request, "base": base, "csrf": self.token(cookie), "flash": _unflash(flash),
                "read_only": self.read_only, **context}
        response: Response = self.templates.TemplateResponse(request, name, page, status_code=status_code)
        if COOKIE not in request.cookies:
            response.set_cookie(COOKIE, cookie, httponly=True, samesite="strict", path=base or "/")
        if flash is not None:
            response.delete_cookie(FLASH, path=base or "/")
        return response

    def back(self, request: Request, form: dict[str, str], default: str, message: str, ok: bool = True) -> Response:
        """Redirect (303) to the form's own page (a local path only) with a flash message."""
        base = request.scope.get("root_path", "").rstrip("/")
        target = form.get("back", "")
        if not target.startswith("/") or target.startswith("//") or "\\" in target:
            target = default
        response = RedirectResponse(base + target, status_code=303)
        response.set_cookie(FLASH, json.dumps({"ok": ok, "text": message[:500]}), httponly=True,
                            samesite="strict", path=base or "/")
        return response

    # -- database -----------------------------------------------------------------------------------

    def read(self, fn: Callable[[psycopg.Connection[Any], observe.Features], Any]) -> Any:
        with self.pool.connection() as conn:
            return fn(conn, observe.features(conn))

    def may_act(self, feats: observe.Features) -> bool:
        return feats.admin and not self.read_only


def _unflash(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return None
    return {"ok": bool(value.get("ok")), "text": value["text"]}


# -- template filters -------------------------------------------------------------------------------


def _age(value: timedelta | None) -> str:
    if value is None:
        return "–"
    seconds = int(value.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    if seconds < 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 86400} d {seconds % 86400 // 3600} h"


def _when(value: datetime | None) -> str:
    if value is None:
        return "–"
    return value.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


def _cell(value: Any) -> str:
    """A value of a generic table (schedules, health): times in UTC, JSON as JSON, NULL as a dash."""
    if value is None:
        return "–"
    if isinstance(value, datetime):
        return _when(value)
    if isinstance(value, timedelta):
        return _age(value)
    if isinstance(value, (dict, list)):
        return _excerpt(value, 120)
    return str(value)


def _excerpt(value: Any, length: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= length else text[: length - 1] + "…"


def _error_line(value: Any) -> str:
    """An error's last non-empty line (a traceback's exception line): of a text, or of a list's last attempt."""
    if isinstance(value, list):
        value = value[-1].get("error", "") if value and isinstance(value[-1], dict) else ""
    lines = [line for line in str(value or "").strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


# -- pages ---------------------------------------------------------------------------------------------


def make_app(dash: Dashboard) -> Starlette:
    def queues_page(request: Request) -> Response:
        after = request.query_params.get("after") or None  # active queues, a page at a time (revision 0008)

        def read(conn: psycopg.Connection[Any], feats: observe.Features) -> dict[str, Any]:
            rows = observe.queues(conn, after=after)
            spark = None
            if feats.may("throughput"):
                per_queue = observe.throughput(conn, timedelta(minutes=SPARK_MINUTES))
                now = datetime.now(timezone.utc).replace(second=0, microsecond=0)
                minutes = [now - timedelta(minutes=SPARK_MINUTES - 1 - i) for i in range(SPARK_MINUTES)]
                spark = {}
                for row in rows:
                    done = {r["minute"]: r["completed"] for r in per_queue.get(row["queue"], [])}
                    values = [float(done.get(m, 0)) for m in minutes]
                    spark[row["queue"]] = {
                        "svg": sparkline(values, label=f"{row['queue']}: completed per minute, last hour"),
                        "hour": int(sum(values)),
                    }
            return {"rows": rows, "spark": spark, "can_act": dash.may_act(feats), "feats": feats,
                    "role": conn.execute(sql.CURRENT_USER).fetchone()[0],  # type: ignore[index]
                    "more": ("/?" + urlencode({"after": rows[-1]["queue"]}))
                    if len(rows) >= observe.QUEUES_PAGE else None,
                    "has_held": any(r.get("held") for r in rows)}  # the column shows when a job is held

        return dash.render(request, "queues.html", {"nav": "queues", **dash.read(read)})

    def jobs_page(request: Request) -> Response:
        return _job_list(request, dead_only=False)

    def dead_page(request: Request) -> Response:
        return _job_list(request, dead_only=True)

    def _job_list(request: Request, *, dead_only: bool) -> Response:
        p = request.query_params
        queue = p.get("queue") or None
        # No state asked: a queue's waiting line, or with no queue what runs now (any queue).
        state = "dead" if dead_only else (p.get("state") or ("waiting" if queue else "running"))
        text = p.get("text") or None
        if state not in observe.STATES:
            raise HTTPException(400, f"state must be one of {', '.join(observe.STATES)}")
        after = _after(p.get("after"))

        def read(conn: psycopg.Connection[Any], feats: observe.Features) -> dict[str, Any]:
            names = [r["queue"] for r in observe.queues(conn)]
            chosen = queue
            if chosen is None and state in ("waiting", "held", "scheduled") and names:
                chosen = names[0]  # these lists are read from one queue's index
            if chosen is None and state in ("waiting", "held", "scheduled"):
                page = observe.Page([], None, False, feats.may("job_page"))
            else:
                page = observe.job_page(conn, feats, queue=chosen, state=state, text=text, after=after,
                                        limit=PAGE_SIZE)
            return {"page": page, "queues": names, "queue": chosen, "can_act": dash.may_act(feats)}

        data = dash.read(read)
        queue = data["queue"]
        path = "/dead" if dead_only else "/jobs"  # links are app paths; templates put the root path in front
        filters = {k: v for k, v in (("queue", queue), ("state", None if dead_only else state), ("text", text)) if v}
        more = None
        if data["page"].next_after is not None:
            more = path + "?" + urlencode({**filters, "after": json.dumps(data["page"].next_after)})
        first = path + ("?" + urlencode(filters) if filters else "")
        here = path + ("?" + request.url.query if request.url.query else "")
        return dash.render(request, "jobs.html", {
            "nav": "dead" if dead_only else "jobs", "dead_only": dead_only, "state": state,
            "text": text or "", "paged": after is not None, "states": observe.STATES, "more": more,
            "first": first, "here": here, "path": path, "live": LIVE, "retryable": FINISHED_RETRYABLE,
            "search_budget": observe.SEARCH_BUDGET, **data})

    def job_page(request: Request) -> Response:
        job_id = _job_id(request)

        def read(conn: psycopg.Connection[Any], feats: observe.Features) -> dict[str, Any]:
            job = observe.job(conn, job_id)
            explain = None
            if job is not None and feats.may("explain"):
                explain = observe.explain(conn, job_id)
            return {"job": job, "explain": explain, "has_explain": feats.has("explain"),
                    "can_act": dash.may_act(feats)}

        data = dash.read(read)
        if data["job"] is None:
            return dash.render(request, "missing.html", {"nav": "jobs", "job_id": job_id}, status_code=404)
        return dash.render(request, "job.html", {"nav": "jobs", "live": LIVE, "retryable": FINISHED_RETRYABLE,
                                                 "here": f"/jobs/{job_id}", **data})

    def listing(name: str, rows: Callable[[psycopg.Connection[Any]], list[observe.Row]]) -> Callable[..., Response]:
        """A page that lists what ``q.<name>()`` returns, or says it is not installed / not granted."""

        def page(request: Request) -> Response:
            def read(conn: psycopg.Connection[Any], feats: observe.Features) -> dict[str, Any]:
                return {"rows": rows(conn) if feats.may(name) else None, "present": feats.has(name)}

            return dash.render(request, f"{name}.html", {"nav": name, **dash.read(read)})

        return page

    health_page = listing("health", observe.health)
    schedules_page = listing("schedules", observe.schedules)
    limits_page = listing("limits", observe.limits)

    # -- actions (POST, CSRF, admin) -------------------------------------------------------------------

    Action = Callable[[psycopg.Connection[Any], dict[str, str]], str]

    async def act(request: Request, default: str, what: Action) -> Response:
        """Check the CSRF token, the mode and the role, run ``what`` and go back with its message."""
        form = await dash.checked_form(request)
        if dash.read_only:
            raise HTTPException(403, "this dashboard is read-only")

        def run() -> tuple[bool, str]:
            with dash.pool.connection() as conn:
                if not observe.features(conn).admin:
                    raise HTTPException(403, "this dashboard's database role may not change jobs (needs pgq_admin)")
                try:
                    return True, what(conn, form)
                except psycopg.Error as exc:
                    diag = getattr(exc, "diag", None)
                    return False, (diag.message_primary if diag is not None else None) or str(exc).strip()

        ok, message = await run_in_threadpool(run)
        return dash.back(request, form, default, message, ok)

    async def pause(request: Request) -> Response:
        queue = request.path_params["queue"]

        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            observe.pause(conn, queue)
            return f"queue {queue} paused"

        return await act(request, "/", do)

    async def resume(request: Request) -> Response:
        queue = request.path_params["queue"]

        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            observe.resume(conn, queue)
            return f"queue {queue} resumed"

        return await act(request, "/", do)

    async def retry(request: Request) -> Response:
        job_id = _job_id(request)

        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            observe.retry(conn, job_id)
            return f"job {job_id} is waiting again"

        return await act(request, f"/jobs/{job_id}", do)

    async def cancel(request: Request) -> Response:
        job_id = _job_id(request)

        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            done = observe.cancel(conn, job_id)
            return f"job {job_id} cancelled" if done else f"job {job_id} had already finished"

        return await act(request, f"/jobs/{job_id}", do)

    async def retry_dead(request: Request) -> Response:
        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            queue = form.get("queue", "")
            if not queue:
                return "choose a queue to retry its dead jobs"
            done = observe.retry_dead(conn, observe.features(conn), queue,
                                      error_contains=form.get("error_contains") or None, limit=BULK_ROWS)
            text = f"{done.count} dead job(s) of {queue} waiting again"
            if done.skipped:
                text += f"; {done.skipped} left dead (a live job holds their dedup key)"
            if done.more:
                text += f"; more match: retry again (at most {BULK_ROWS} per click)"
            return text

        return await act(request, "/dead", do)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        await run_in_threadpool(dash.pool.open)
        try:
            yield
        finally:
            await run_in_threadpool(dash.pool.close)

    async def headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    routes = [
        Route("/", queues_page, name="queues"),
        Route("/jobs", jobs_page, name="jobs"),
        Route("/jobs/{job_id:int}", job_page, name="job"),
        Route("/dead", dead_page, name="dead"),
        Route("/health", health_page, name="health"),
        Route("/schedules", schedules_page, name="schedules"),
        Route("/limits", limits_page, name="limits"),
        Route("/queues/{queue}/pause", pause, methods=["POST"]),
        Route("/queues/{queue}/resume", resume, methods=["POST"]),
        Route("/jobs/{job_id:int}/retry", retry, methods=["POST"]),
        Route("/jobs/{job_id:int}/cancel", cancel, methods=["POST"]),
        Route("/dead/retry", retry_dead, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(BaseHTTPMiddleware, dispatch=headers)],
                     exception_handlers={HTTPException: _error(dash), psycopg.Error: _database_error(dash)})


def _after(raw: str | None) -> dict[str, Any] | None:
    """The ``after`` of a page link: the JSON object a page gave as next_after (checked again by q.job_page)."""
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        raise HTTPException(400, "after must be the next_after of a previous page") from None
    if not isinstance(value, dict):
        raise HTTPException(400, "after must be the next_after of a previous page")
    return value


def _job_id(request: Request) -> int:
    return int(request.path_params["job_id"])


def _error(dash: Dashboard) -> Callable[[Request, Exception], Any]:
    def handle(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return dash.render(request, "error.html", {"nav": "", "status": exc.status_code, "detail": exc.detail},
                           status_code=exc.status_code)

    return handle


def _database_error(dash: Dashboard) -> Callable[[Request, Exception], Any]:
    def handle(request: Request, exc: Exception) -> Response:
        diag = getattr(exc, "diag", None)
        message = (diag.message_primary if diag is not None else None) or str(exc).strip() or type(exc).__name__
        sqlstate = getattr(exc, "sqlstate", None) or ""
        if sqlstate.startswith("22") or sqlstate == "P0002":  # bad input (a hand-edited link), unknown queue
            return dash.render(request, "error.html", {"nav": "", "status": 400, "detail": message}, status_code=400)
        return dash.render(request, "error.html", {"nav": "", "status": 503,
                                                   "detail": f"the database did not answer: {message}"},
                           status_code=503)

    return handle
