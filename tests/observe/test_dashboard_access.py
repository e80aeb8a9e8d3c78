"""Who may act on the dashboard: CSRF on every action, read-only mode, the database role's grants; where it
listens; a root path behind a proxy; a missing extra."""

from __future__ import annotations

import http.cookiejar
import os
import re
import subprocess
import sys
import textwrap
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import psycopg
from dashboard_support import dashboard, jobs_in_every_state
from psycopg.conninfo import conninfo_to_dict, make_conninfo


class Browserless:
    """An HTTP client that keeps cookies and does not follow redirects (to see the 303s)."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: object, **kwargs: object) -> None:
                return None

        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())

    def get(self, url: str) -> tuple[int, str]:
        try:
            with self.opener.open(url, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def post(self, url: str, form: dict[str, str]) -> int:
        data = urllib.parse.urlencode(form).encode()
        try:
            with self.opener.open(urllib.request.Request(url, data=data, method="POST"), timeout=10) as r:
                return int(r.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)


def token(page: str) -> str:
    found = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert found, "no CSRF token on the page"
    return found.group(1)


def is_paused(url: str, queue: str = "emails") -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        return bool(conn.execute("select paused from q.stats() where queue = %s", (queue,)).fetchone()[0])  # type: ignore[index]


def test_every_action_needs_this_browsers_csrf_token(db_url: str, tmp_path: Path) -> None:
    jobs_in_every_state(db_url)
    with dashboard(db_url, tmp_path / "d.log") as base:
        assert "http://127.0.0.1:" in (tmp_path / "d.log").read_text()  # binds 127.0.0.1 unless told otherwise
        me, other = Browserless(), Browserless()
        status, page = me.get(base + "/")
        assert status == 200
        good = token(page)
        other.get(base + "/")  # another browser: a cookie (and so a token) of its own
        pause = base + "/queues/emails/pause"
        assert me.post(pause, {}) == 403
        assert me.post(pause, {"csrf": "0" * 64}) == 403
        assert Browserless().post(pause, {"csrf": good}) == 403  # the token without its cookie
        assert other.post(pause, {"csrf": good}) == 403  # someone else's token
        assert me.post(base + "/schedules/pause", {"name": "any"}) == 403  # schedule actions too
        assert not is_paused(db_url)
        assert me.post(pause, {"csrf": good, "back": "//evil.example/"}) == 303
        assert is_paused(db_url)


def test_read_only_mode_shows_no_action_and_refuses_them(db_url: str, tmp_path: Path) -> None:
    jobs_in_every_state(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.schedule(name => 'nightly', cron => '0 3 * * *', queue => 'emails', payload => '{}')")
    with dashboard(db_url, tmp_path / "d.log", "--read-only") as base:
        me = Browserless()
        status, page = me.get(base + "/")
        assert status == 200 and "read-only" in page
        assert "button" not in page.split("<main>", 1)[1]
        status, dead = me.get(base + "/dead?queue=emails")
        assert status == 200 and "Retry" not in dead
        assert me.post(base + "/queues/emails/pause", {"csrf": token(page)}) == 403
        status, schedules = me.get(base + "/schedules")
        assert status == 200 and "nightly" in schedules and "<button" not in schedules.split("<main>", 1)[1]
        assert me.post(base + "/schedules/pause", {"csrf": token(page), "name": "nightly"}) == 403
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert conn.execute("select paused from q.schedules('nightly')").fetchone() == (False,)
    assert not is_paused(db_url)


def test_a_role_without_pgq_admin_gets_no_actions(db_url: str, tmp_path: Path) -> None:
    """A role that may read but not act (pgq_viewer, revision 0006; until then a role granted only q.stats and
    q.jobs) sees the pages without buttons and is refused every action by the database check."""
    jobs_in_every_state(db_url)
    role = f"viewer_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"create role {role} login password 'v'")
        # Roles are cluster-wide: pgq_viewer may exist without this database's grants (another revision).
        viewer = conn.execute("select exists(select from pg_roles where rolname = 'pgq_viewer')"
                              " and has_schema_privilege('pgq_viewer', 'q', 'usage')").fetchone()[0]  # type: ignore[index]
        if viewer:
            conn.execute(f"grant pgq_viewer to {role}")
        else:
            conn.execute(f"grant usage on schema q to {role}")
            conn.execute(f"grant execute on function q.stats(), q.jobs(text, text, bigint, integer) to {role}")
    url = make_conninfo(**{**conninfo_to_dict(db_url), "user": role, "password": "v"})
    try:
        with dashboard(url, tmp_path / "d.log") as base:
            me = Browserless()
            status, page = me.get(base + "/")
            assert status == 200 and "this role is not pgq_admin" in page
            assert "<button" not in page.split("<main>", 1)[1]  # (the header's auto-refresh toggle is no action)
            assert me.post(base + "/queues/emails/pause", {"csrf": token(page)}) == 403
        assert not is_paused(db_url)
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(f"drop owned by {role}")
            conn.execute(f"drop role {role}")


def test_served_under_a_root_path_every_link_keeps_it(db_url: str, tmp_path: Path) -> None:
    """Behind a proxy that serves it at /pgq/ and strips the prefix (nginx: proxy_pass http://127.0.0.1:8080/)."""
    jobs_in_every_state(db_url)
    with dashboard(db_url, tmp_path / "d.log", "--root-path=/pgq") as base:
        me = Browserless()
        status, page = me.get(base + "/jobs?queue=bulk")
        assert status == 200
        links = re.findall(r'(?:href|action|src)="([^"]+)"', page)
        assert links and all(link.startswith("/pgq/") for link in links), links
        status, _ = me.get(base + "/static/pgq.css")
        assert status == 200


def test_pgq_dashboard_without_its_extra_says_which_to_install(db_url: str) -> None:
    script = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("starlette", "uvicorn"):
                    raise ImportError(f"blocked: {name}")
                return None
        sys.meta_path.insert(0, Block())
        from pgq_client.cli import main
        sys.argv = ["pgq", "dashboard"]
        main()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DATABASE_URL": db_url, "COLUMNS": "200"})
    assert done.returncode == 1
    assert "pip install 'pgq-client[dashboard]'" in done.stderr and "Traceback" not in done.stderr
