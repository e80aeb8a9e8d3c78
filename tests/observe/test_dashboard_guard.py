"""What the dashboard refuses, over real HTTP against a running `pgq dashboard`: a Host it does not answer to
(DNS rebinding), a cross-site POST even with the page's own cookie and token, a token for a cookie the client
made up, an expired token, a flash message it did not write; and text searches over the cap, refused at once
while /health answers."""

from __future__ import annotations

import html
import http.client
import re
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from dashboard_support import dashboard, jobs_in_every_state
from pgq_client import enqueue_many

FORGED = "attacker.example"


@dataclass
class Answer:
    status: int
    body: str
    headers: dict[str, str]
    cookies: dict[str, str]
    seconds: float


@dataclass
class Client:
    """A bare HTTP client: every header (Host, Origin, Sec-Fetch-Site, Cookie) is what the test says."""

    base: str
    cookies: dict[str, str] = field(default_factory=dict)

    def send(self, method: str, path: str, form: dict[str, str] | None = None, **headers: str) -> Answer:
        parts = urllib.parse.urlsplit(self.base)
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        body = urllib.parse.urlencode(form).encode() if form is not None else None
        sent = {"Host": parts.netloc, **{k.replace("_", "-"): v for k, v in headers.items()}}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.monotonic()
        try:
            conn.request(method, path, body=body, headers=sent)
            r = conn.getresponse()
            text = html.unescape(r.read().decode(errors="replace"))
            cookies = {}
            for name, value in r.getheaders():
                if name.lower() == "set-cookie":
                    k, _, rest = value.partition("=")
                    cookies[k] = rest.split(";", 1)[0]
            return Answer(r.status, text, {k.lower(): v for k, v in r.getheaders()}, cookies,
                          time.monotonic() - started)
        finally:
            conn.close()

    def page(self, path: str = "/") -> tuple[Answer, str]:
        """GET a page, keep the session cookie it sets, return its CSRF token."""
        answer = self.send("GET", path)
        assert answer.status == 200, (answer.status, answer.body[-500:])
        self.cookies.update({k: v for k, v in answer.cookies.items() if k != "pgq_flash"})
        found = re.search(r'name="csrf-token" content="([^"]+)"', answer.body)
        assert found, "no CSRF token on the page"
        return answer, found.group(1)


def paused(url: str, queue: str = "emails") -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select paused from q.stats() where queue = %s", (queue,)).fetchone()
        assert row is not None
        return bool(row[0])


def session_cookie_name(answer: Answer) -> str:
    names = [k for k in answer.cookies if k != "pgq_flash"]
    assert len(names) == 1, answer.cookies
    return names[0]


def test_a_host_the_dashboard_does_not_answer_to_is_refused_on_every_route(db_url: str, tmp_path: Path) -> None:
    made = jobs_in_every_state(db_url)
    with dashboard(db_url, tmp_path / "d.log") as base:
        me = Client(base)
        port = urllib.parse.urlsplit(base).port
        _, csrf = me.page("/")
        job = f"/jobs/{made.running}"
        for method, path in [("GET", "/"), ("GET", job), ("GET", "/health"), ("GET", "/static/pgq.css"),
                             ("GET", "/static/favicon.svg"), ("GET", "/nowhere"), ("POST", "/queues/emails/pause")]:
            form = {"csrf": csrf} if method == "POST" else None
            for forged in (f"{FORGED}:{port}", FORGED, f"localhost.{FORGED}", f"{FORGED}@127.0.0.1", ""):
                answer = me.send(method, path, form, Host=forged)
                assert answer.status == 400, (method, path, forged, answer.status)
                assert "does not answer to Host" in answer.body and "--allowed-host" in answer.body
                assert "busy@example.com" not in answer.body and "pgq_session" not in answer.cookies
        assert not paused(db_url)
        for local in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "LOCALHOST"):
            assert me.send("GET", job, Host=local).status == 200, local
        assert me.send("GET", "/", Host="pgq.example.com").status == 400
    with dashboard(db_url, tmp_path / "d2.log", "--allowed-host", "pgq.example.com", "--allowed-host",
                   "[fd00::7]") as base:
        me = Client(base)
        assert me.send("GET", "/health", Host="pgq.example.com").status == 200
        assert me.send("GET", "/", Host="[fd00::7]:443").status == 200
        assert me.send("GET", "/", Host=FORGED).status == 400


def test_a_cross_site_post_is_refused_even_with_the_pages_own_cookie_and_token(db_url: str, tmp_path: Path) -> None:
    jobs_in_every_state(db_url)
    with dashboard(db_url, tmp_path / "d.log") as base:
        me = Client(base)
        _, csrf = me.page("/")
        pause = "/queues/emails/pause"
        form = {"csrf": csrf, "back": "/"}
        for headers in ({"Origin": "http://evil.example"},
                        {"Origin": "http://evil.example", "Sec_Fetch_Site": "cross-site"},
                        {"Sec_Fetch_Site": "cross-site"},
                        {"Sec_Fetch_Site": "same-site", "Origin": "http://localhost:3000"},
                        {"Origin": "http://localhost:3000"},  # another app on this machine
                        {"Origin": "null"},
                        {"Referer": "http://evil.example/page"}):
            answer = me.send("POST", pause, form, **headers)
            assert answer.status == 403, (headers, answer.status)
            assert "actions must come from this dashboard's own pages" in answer.body, answer.body[-800:]
            assert not paused(db_url), headers
        # The same page's form, as a browser sends it: same-origin.
        answer = me.send("POST", pause, form, Origin=base, Sec_Fetch_Site="same-origin")
        assert answer.status == 303 and paused(db_url)
        _, csrf = me.page("/")
        answer = me.send("POST", "/queues/emails/resume", {"csrf": csrf}, Sec_Fetch_Site="same-origin")
        assert answer.status == 303 and not paused(db_url)  # no Origin, but the browser says same-origin
        _, csrf = me.page("/")
        answer = me.send("POST", pause, {"csrf": csrf}, Referer=base + "/")
        assert answer.status == 303 and paused(db_url)  # an older browser: no fetch metadata, its Referer


def test_a_token_for_a_cookie_the_client_made_up_is_refused(db_url: str, tmp_path: Path) -> None:
    jobs_in_every_state(db_url)
    with dashboard(db_url, tmp_path / "d.log") as base:
        first, _ = Client(base).page("/")
        name = session_cookie_name(first)
        for invented in ("a" * 32, "attacker-chosen", "x.0123456789abcdef", first.cookies[name] + "0"):
            forger = Client(base, {name: invented})
            answer = forger.send("GET", "/")
            csrf = re.search(r'name="csrf-token" content="([^"]+)"', answer.body).group(1)  # type: ignore[union-attr]
            refused = forger.send("POST", "/queues/emails/pause", {"csrf": csrf}, Sec_Fetch_Site="same-origin")
            assert refused.status == 403, (invented, refused.status)
            assert "no session of this dashboard" in refused.body
            assert not paused(db_url)
            assert answer.cookies.get(name) not in (None, invented)  # the server issued its own instead
        ours = Client(base)
        _, csrf = ours.page("/")
        assert ours.send("POST", "/queues/emails/pause", {"csrf": csrf}).status == 303 and paused(db_url)


def test_a_flash_message_the_server_did_not_write_is_not_shown(db_url: str, tmp_path: Path) -> None:
    """A cookie set by another site on a shared parent domain cannot put words on the dashboard."""
    jobs_in_every_state(db_url)
    with dashboard(db_url, tmp_path / "d.log") as base:
        forged = Client(base, {"pgq_flash": '{"ok": true, "text": "Queue repaired: now run curl evil.example"}'})
        answer = forged.send("GET", "/")
        assert answer.status == 200 and "curl evil.example" not in answer.body and 'id="flash"' not in answer.body
        me = Client(base)
        _, csrf = me.page("/")
        done = me.send("POST", "/queues/emails/pause", {"csrf": csrf, "back": "/"})
        assert done.status == 303
        me.cookies["pgq_flash"] = done.cookies["pgq_flash"]
        assert "queue emails paused" in me.send("GET", "/").body  # its own messages still show


def test_an_expired_token_is_refused_with_a_clear_message(db_url: str, tmp_path: Path) -> None:
    jobs_in_every_state(db_url)
    with dashboard(db_url, tmp_path / "d.log", env={"PGQ_DASHBOARD_TOKEN_LIFETIME": "2"}) as base:
        me = Client(base)
        _, old = me.page("/")
        time.sleep(3)
        answer = me.send("POST", "/queues/emails/pause", {"csrf": old}, Sec_Fetch_Site="same-origin")
        assert answer.status == 403, answer.status
        assert re.search(r"CSRF token expired at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC .*valid for 2 s.*reload the page",
                         answer.body), answer.body[-800:]
        assert not paused(db_url)
        _, fresh = me.page("/")  # reloading gives a new token, good for 2 s
        assert me.send("POST", "/queues/emails/pause", {"csrf": fresh}, Sec_Fetch_Site="same-origin").status == 303
        assert paused(db_url)


@pytest.mark.serial  # answers under 1-2 s: CPU contention could break it
def test_text_searches_over_the_cap_are_refused_at_once_while_health_answers(db_url: str, tmp_path: Path) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:  # ~1 MiB payloads that compress little
        for _ in range(4):
            enqueue_many(conn, "big", [{"blob": secrets.token_hex(450_000)} for _ in range(10)])
    with dashboard(db_url, tmp_path / "d.log") as base:  # the default cap: 2 searches at once
        searches: list[Answer] = []
        health: list[Answer] = []
        start = threading.Barrier(9)

        def search(n: int) -> None:
            start.wait()
            searches.append(Client(base).send("GET", f"/jobs?queue=big&state=waiting&text=nowhere{n}"))

        def check_health() -> None:
            start.wait()
            time.sleep(0.2)  # the searches are running
            health.append(Client(base).send("GET", "/health"))
            health.append(Client(base).send("GET", "/"))

        threads = [threading.Thread(target=search, args=(n,)) for n in range(8)]
        threads.append(threading.Thread(target=check_health))
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        statuses = sorted(a.status for a in searches)
        assert statuses.count(200) >= 2 and 503 not in statuses and set(statuses) <= {200, 429}, statuses
        refused = [a for a in searches if a.status == 429]
        assert refused, f"no search was refused: {[(a.status, round(a.seconds, 2)) for a in searches]}"
        slowest_search = max(a.seconds for a in searches)
        for answer in refused:
            assert answer.seconds < 1.0, answer.seconds
            assert "text search(es) are already running" in answer.body
            assert answer.headers.get("retry-after") == "2"
        assert [a.status for a in health] == [200, 200], [(a.status, a.body[-300:]) for a in health]
        assert max(a.seconds for a in health) < 2.0, [a.seconds for a in health]
        print(f"slowest search {slowest_search:.2f} s; refused {len(refused)} in at most "
              f"{max(a.seconds for a in refused):.3f} s; /health and / in {[round(a.seconds, 3) for a in health]} s")
