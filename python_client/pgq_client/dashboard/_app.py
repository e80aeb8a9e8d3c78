"""The dashboard's ASGI app: pages that read through :mod:`pgq_client.observe`, and admin actions behind CSRF
that call the thin client (:mod:`pgq_client._client`; the bulk retry of dead jobs is ``_actions.retry_dead``).

Pages are plain HTML from jinja2 templates (autoescaped), with the package's
own CSS and a few lines of JS (``static/``): no build step, nothing from a
CDN, and a Content-Security-Policy that allows only this origin. Reads run
in Starlette's thread pool on a small psycopg pool whose connections carry a
``statement_timeout``.

Who may act is the database's decision: the dashboard shows actions (pause,
resume, retry, cancel, bulk retry) only when its role may call those
functions (``pgq_admin``) and it was not started ``read_only``; a POST is
refused (403) otherwise.

Which requests it answers (``_guard``): a Host allow-list on every request
(400 for another name: DNS rebinding), and on every POST the browser's
``Sec-Fetch-Site`` / ``Origin`` must say it comes from the dashboard's own
pages (403). Every POST also carries a CSRF token (``_session``): an HMAC,
under a key made when the app starts, of a server-issued session id (cookie
``pgq_session``, ``SameSite=Strict``, ``HttpOnly``) and an expiry, so a token
is worth nothing with a cookie the client made up, and nothing after its
lifetime (an hour by default). Text searches read large payloads: at most
``max_searches`` run at once, and another is refused at once (429) so the
other pages keep their connections.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable
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
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from .. import _client as calls
from .. import _queries as sql
from .. import observe
from ..records import JOB_LIST_STATES
from . import _format as fmt
from ._actions import retry_dead as retry_dead_jobs
from ._guard import Guard
from ._session import TOKEN_LIFETIME, Sessions
from ._svg import sparkline

HERE = Path(__file__).resolve().parent
COOKIE = "pgq_session"
FLASH = "pgq_flash"
PAGE_SIZE = 50
BULK_ROWS = 1000  # jobs per bulk click (q.retry_dead's max_rows)
SPARK_MINUTES = 60
LIVE = ("waiting", "held", "scheduled", "running", "pending", "on_hold")
FINISHED_RETRYABLE = ("dead", "cancelled")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self';"
                               " frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


# Pages fetch themselves this often (static/pgq.js; a toggle pauses it; not a text search, not while editing a form).
REFRESH_SECONDS = 5
# Parents and children each on a job's page (q.job_graph's max_rows); pgq flow ID shows more.
GRAPH_ROWS = 50
# Keys per keyed queue on the Limits page (q.busy_keys's max_rows).
BUSY_KEYS_SHOWN = 5
# A job id typed into the search box ("#" optional) opens that job; in quotes it is searched as text.
JOB_ID = re.compile(r'\s*#?(\d{1,18})\s*')
QUOTED_NUMBER = re.compile(r'\s*"(\d+)"\s*')
# Text searches running at once when not told (each holds one of the pool's connections for up to query_timeout).
MAX_SEARCHES = 2


class Dashboard:
    """The app's state: the pool, the sessions and their CSRF tokens, the Host/Origin guard, the templates."""

    def __init__(self, database_url: str, *, read_only: bool = False, pool_size: int = 4,
                 query_timeout: float = 5.0, allowed_hosts: Iterable[str] = (), bound_host: str | None = None,
                 token_lifetime: float = TOKEN_LIFETIME, max_searches: int = MAX_SEARCHES,
                 label: str | None = None, read_url: str | None = None) -> None:
        if max_searches < 1:
            raise ValueError(f"max_searches must be at least 1, got {max_searches}")
        self.read_only = read_only
        self.label = label  # one of several databases (dashboard/_several.py): shown in the header
        self.query_timeout = timedelta(seconds=query_timeout)
        self.sessions = Sessions(lifetime=token_lifetime)
        self.guard = Guard(bound_host=bound_host, allowed_hosts=allowed_hosts)
        self.max_searches = max_searches
        self.searches = threading.BoundedSemaphore(max_searches)
        self.pool: ConnectionPool[Any] = ConnectionPool(
            database_url, min_size=1, max_size=pool_size, open=False, name="pgq-dashboard",
            kwargs={"autocommit": True, "application_name": "pgq-dashboard"}, configure=self._configure)
        # Pages may read from a standby (read_url); actions always go to database_url (the primary).
        self.read_pool: ConnectionPool[Any] | None = None if read_url is None else ConnectionPool(
            read_url, min_size=1, max_size=pool_size, open=False, name="pgq-dashboard-read",
            kwargs={"autocommit": True, "application_name": "pgq-dashboard"}, configure=self._configure)
        self._seen = threading.local()  # the staleness of the standby this request's page was read from
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")), autoescape=True,
                                 undefined=jinja2.StrictUndefined)
        self.templates = Jinja2Templates(env=env)
        for name in ("age", "when", "iso", "in_zone", "pretty", "excerpt", "error_line", "cell", "every",
                     "numbered_errors", "severity_counts", "linked_jobs"):
            env.filters[name] = getattr(fmt, name)

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        observe.bound(conn, self.query_timeout)

    # -- CSRF and flash messages -------------------------------------------------------------------

    async def checked_form(self, request: Request) -> dict[str, str]:
        """The POSTed form if its CSRF token is this session's and unexpired; 403 (saying why) otherwise."""
        form = await request.form()
        values = {k: v for k, v in form.items() if isinstance(v, str)}
        refused = self.sessions.check(request.cookies.get(COOKIE), values.get("csrf"))
        if refused is not None:
            raise HTTPException(403, refused)
        return values

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, request: Request, name: str, context: dict[str, Any], status_code: int = 200,
               headers: dict[str, str] | None = None) -> Response:
        cookie = request.cookies.get(COOKIE)
        sid = self.sessions.session(cookie)
        if sid is None:  # none yet, or one this server did not issue: a new one
            cookie = self.sessions.issue()
            sid = self.sessions.session(cookie)
            assert sid is not None
        else:
            cookie = None
        flash = request.cookies.get(FLASH)
        base = request.scope.get("root_path", "").rstrip("/")
        shown = _unflash(self.sessions.unseal(flash))  # only this server's own messages
        page = {"request": request, "base": base, "csrf": self.sessions.token(sid), "flash": shown,
                "read_only": self.read_only, "refresh": REFRESH_SECONDS, "database": self.label,
                "home": base.rsplit("/db/", 1)[0] if self.label else base,
                "staleness": getattr(self._seen, "staleness", None) if self.read_pool is not None else None,
                **context}
        response: Response = self.templates.TemplateResponse(request, name, page, status_code=status_code,
                                                             headers=headers)
        if cookie is not None:
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
        sealed = self.sessions.seal(json.dumps({"ok": ok, "text": message[:500]}))
        response.set_cookie(FLASH, sealed, httponly=True, samesite="strict", path=base or "/")
        return response

    # -- database -----------------------------------------------------------------------------------

    def read(self, fn: Callable[[psycopg.Connection[Any], observe.Features], Any]) -> Any:
        """Run a page's reads: on the read pool (a standby) when there is one, and note how stale it is."""
        with (self.read_pool or self.pool).connection() as conn:
            if self.read_pool is not None:
                self._seen.staleness = observe.staleness(conn)
            return fn(conn, observe.features(conn))

    def pools(self) -> list[ConnectionPool[Any]]:
        return [self.pool] if self.read_pool is None else [self.pool, self.read_pool]

    def search(self, fn: Callable[[psycopg.Connection[Any], observe.Features], Any]) -> Any:
        """``read`` for a text search: at most ``max_searches`` at once; another is refused now (429), not queued."""
        if not self.searches.acquire(blocking=False):
            raise HTTPException(429, f"{self.max_searches} text search(es) are already running, the most this"
                                     " dashboard runs at once (they read whole payloads): try again in a few"
                                     " seconds, or narrow the search to a queue and state",
                                headers={"Retry-After": "2"})
        try:
            return self.read(fn)
        finally:
            self.searches.release()

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
                    "has_held": any(r.get("held") for r in rows),  # the column shows when a job is held
                    # and the workflow columns when a job waits for parents or is on hold (revision 0010)
                    "has_graphs": any(r.get("pending") or r.get("on_hold") for r in rows)}

        return dash.render(request, "queues.html", {"nav": "queues", **dash.read(read)})

    def jobs_page(request: Request) -> Response:
        return _job_list(request, dead_only=False)

    def dead_page(request: Request) -> Response:
        return _job_list(request, dead_only=True)

    def _job_list(request: Request, *, dead_only: bool) -> Response:
        p = request.query_params
        number = None
        queue = p.get("queue") or None
        # No state asked: a queue's waiting line, or with no queue what runs now (any queue).
        state = "dead" if dead_only else (p.get("state") or ("waiting" if queue else "running"))
        text = p.get("text") or None
        if text and (number := JOB_ID.fullmatch(text)):
            job_id = int(number.group(1))
            if dash.read(lambda conn, feats: observe.job(conn, job_id)) is not None:
                base = request.scope.get("root_path", "").rstrip("/")
                return RedirectResponse(f"{base}/jobs/{job_id}", status_code=303)
        if text and (quoted := QUOTED_NUMBER.fullmatch(text)):
            text = quoted.group(1)
        if state not in JOB_LIST_STATES:
            raise HTTPException(400, f"state must be one of {', '.join(JOB_LIST_STATES)}")
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

        data = dash.search(read) if text else dash.read(read)
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
            "text": text or "", "paged": after is not None, "states": JOB_LIST_STATES, "more": more,
            "first": first, "here": here, "path": path, "live": LIVE, "retryable": FINISHED_RETRYABLE,
            "search_budget": observe.SEARCH_BUDGET, "refresh": 0 if text else REFRESH_SECONDS,
            "no_job": int(number.group(1)) if text and number else None, **data})

    def job_page(request: Request) -> Response:
        job_id = _job_id(request)

        def read(conn: psycopg.Connection[Any], feats: observe.Features) -> dict[str, Any]:
            job = observe.job(conn, job_id)
            explain = None
            if job is not None and feats.may("explain"):
                explain = fmt.explained(observe.explain(conn, job_id), job_id)
            # The result and progress (revision 0009), for a role that may read them.
            outcome = observe.result(conn, job_id) if job is not None and feats.may("result") else None
            # Its parents and children (workflows, revision 0009): shown when it has any.
            related = []
            if job is not None and feats.may("job_graph"):
                related = [r for r in observe.graph(conn, job_id, GRAPH_ROWS) if r["relation"] != "self"]
            return {"job": job, "explain": explain, "has_explain": feats.has("explain"),
                    "can_act": dash.may_act(feats), "outcome": outcome, "related": related,
                    "graph_rows": GRAPH_ROWS}

        data = dash.read(read)
        if data["job"] is None:
            return dash.render(request, "missing.html", {"nav": "jobs", "job_id": job_id}, status_code=404)
        return dash.render(request, "job.html", {"nav": "jobs", "live": LIVE, "retryable": FINISHED_RETRYABLE,
                                                 "here": f"/jobs/{job_id}", **data})

    def listing(name: str, rows: Callable[[psycopg.Connection[Any]], list[observe.Row]],
                more: Callable[[observe.Features], dict[str, Any]] = lambda feats: {}) -> Callable[..., Response]:
        """A page that lists what ``q.<name>()`` returns, or says it is not installed / not granted."""

        def page(request: Request) -> Response:
            def read(conn: psycopg.Connection[Any], feats: observe.Features) -> dict[str, Any]:
                return {"rows": rows(conn) if feats.may(name) else None, "present": feats.has(name), **more(feats)}

            return dash.render(request, f"{name}.html", {"nav": name, **dash.read(read)})

        return page

    def health_rows(conn: psycopg.Connection[Any]) -> list[observe.Row]:
        return fmt.by_severity(observe.health(conn))

    def schedule_actions(feats: observe.Features) -> dict[str, Any]:
        may = feats.may("pause_schedule") and feats.may("resume_schedule") and not dash.read_only
        return {"can_act": may}

    health_page = listing("health", health_rows)
    schedules_page = listing("schedules", observe.schedules, schedule_actions)
    def limits_page(request: Request) -> Response:
        """q.limits per limited queue, each with its busiest keys (q.busy_keys, revision 0009, when granted)."""

        def read(conn: psycopg.Connection[Any], feats: observe.Features) -> dict[str, Any]:
            if not feats.may("limits"):
                return {"rows": None, "present": feats.has("limits")}
            keys: dict[str, list[observe.Row]] = {}
            if feats.may("busy_keys"):
                for k in observe.busy_keys(conn, max_rows=BUSY_KEYS_SHOWN):
                    keys.setdefault(k["queue"], []).append(k)
            return {"rows": observe.limits(conn), "keys": keys, "present": True,
                    "keys_present": feats.may("busy_keys"), "busy_keys_shown": BUSY_KEYS_SHOWN}

        return dash.render(request, "limits.html", {"nav": "limits", **dash.read(read)})

    # -- actions (POST, CSRF, admin) -------------------------------------------------------------------

    Action = Callable[[psycopg.Connection[Any], dict[str, str]], str]

    async def act(request: Request, default: str, what: Action, need: str | None = None) -> Response:
        """Check the CSRF token, the mode and the role (pgq_admin, or may call ``q.<need>``), run ``what`` and go back
        with its message."""
        form = await dash.checked_form(request)
        if dash.read_only:
            raise HTTPException(403, "this dashboard is read-only")

        def run() -> tuple[bool, str]:
            with dash.pool.connection() as conn:
                feats = observe.features(conn)
                if not (feats.may(need) if need else feats.admin):
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
            calls.pause(conn, queue)
            return f"queue {queue} paused"

        return await act(request, "/", do)

    async def resume(request: Request) -> Response:
        queue = request.path_params["queue"]

        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            calls.resume(conn, queue)
            return f"queue {queue} resumed"

        return await act(request, "/", do)

    async def pause_schedule(request: Request) -> Response:
        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            name = form.get("name", "")
            if not calls.pause_schedule(conn, name):
                return f"no schedule {name}"
            return f"schedule {name} paused"

        return await act(request, "/schedules", do, need="pause_schedule")

    async def resume_schedule(request: Request) -> Response:
        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            name = form.get("name", "")
            if not calls.resume_schedule(conn, name):
                return f"no schedule {name}"
            return f"schedule {name} resumed"

        return await act(request, "/schedules", do, need="resume_schedule")

    async def retry(request: Request) -> Response:
        job_id = _job_id(request)

        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            calls.retry(conn, job_id)
            return f"job {job_id} is waiting again"

        return await act(request, f"/jobs/{job_id}", do)

    async def cancel(request: Request) -> Response:
        job_id = _job_id(request)

        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            done = calls.cancel(conn, job_id)
            return f"job {job_id} cancelled" if done else f"job {job_id} had already finished"

        return await act(request, f"/jobs/{job_id}", do)

    async def retry_dead(request: Request) -> Response:
        def do(conn: psycopg.Connection[Any], form: dict[str, str]) -> str:
            queue = form.get("queue", "")
            if not queue:
                return "choose a queue to retry its dead jobs"
            done = retry_dead_jobs(conn, observe.features(conn), queue,
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
        for pool in dash.pools():
            await run_in_threadpool(pool.open)
        try:
            yield
        finally:
            for pool in dash.pools():
                await run_in_threadpool(pool.close)

    async def guard(request: Request, call_next: Any) -> Response:
        """Every request: the Host allow-list (400); every POST: from this dashboard's pages (403). Then headers."""
        response: Response
        refused = dash.guard.refuse_host(request.headers.get("host"))
        if refused is not None:  # plain text: no session, no token for a name we do not answer to
            response = PlainTextResponse(refused, status_code=400)
        elif (why := dash.guard.refuse_cross_site(request.method, request.headers)) is not None:
            response = dash.render(request, "error.html", {"nav": "", "status": 403, "detail": why, "refresh": 0},
                                   status_code=403)
        else:
            response = await call_next(request)
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
        Route("/schedules/pause", pause_schedule, methods=["POST"]),
        Route("/schedules/resume", resume_schedule, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(BaseHTTPMiddleware, dispatch=guard)],
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
        return dash.render(request, "error.html", {"nav": "", "status": exc.status_code, "detail": exc.detail,
                                                   "refresh": 0},
                           status_code=exc.status_code, headers=dict(exc.headers or {}))

    return handle


def _database_error(dash: Dashboard) -> Callable[[Request, Exception], Any]:
    def handle(request: Request, exc: Exception) -> Response:
        diag = getattr(exc, "diag", None)
        message = (diag.message_primary if diag is not None else None) or str(exc).strip() or type(exc).__name__
        sqlstate = getattr(exc, "sqlstate", None) or ""
        if sqlstate.startswith("22") or sqlstate == "P0002":  # bad input (a hand-edited link), unknown queue
            return dash.render(request, "error.html", {"nav": "", "status": 400, "detail": message, "refresh": 0},
                               status_code=400)
        return dash.render(request, "error.html", {"nav": "", "status": 503, "refresh": 0,
                                                   "detail": f"the database did not answer: {message}"},
                           status_code=503)

    return handle
