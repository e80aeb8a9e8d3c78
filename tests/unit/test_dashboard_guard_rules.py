"""The dashboard's request rules without a server: Host names, same-origin POSTs, sessions and token expiry."""

from __future__ import annotations

import pytest
from pgq_client.dashboard._guard import Guard, host_name
from pgq_client.dashboard._session import Sessions


def test_host_names_are_parsed_strictly() -> None:
    assert host_name("LocalHost:8080") == "localhost" and host_name("[::1]:80") == "::1"
    assert host_name("pgq.example.com.") == "pgq.example.com"
    for bad in (None, "", "evil@127.0.0.1", "127.0.0.1/x", "[::1", "a b", "host:99999999"):
        assert host_name(bad) is None, bad


def test_the_host_allow_list_has_the_local_names_the_bound_host_and_the_extra_ones() -> None:
    guard = Guard(bound_host="10.0.0.5", allowed_hosts=["pgq.example.com"])
    for ok in ("localhost", "127.0.0.1:8080", "[::1]:8080", "10.0.0.5:8080", "PGQ.example.com"):
        assert guard.refuse_host(ok) is None, ok
    for bad in ("attacker.example", "localhost.attacker.example", "", None):
        assert "does not answer to Host" in (guard.refuse_host(bad) or ""), bad
    assert Guard(bound_host="0.0.0.0").hosts == {"localhost", "127.0.0.1", "::1"}  # a wildcard adds no name
    assert Guard(allowed_hosts=["*"]).refuse_host("anything.example") is None
    assert Guard(allowed_hosts=["PGQ.example.com:8443", "[fd00::7]"]).hosts >= {"pgq.example.com", "fd00::7"}
    assert Guard(bound_host="::").hosts == {"localhost", "127.0.0.1", "::1"}


def test_a_post_must_come_from_the_dashboards_own_pages() -> None:
    guard = Guard(allowed_hosts=["pgq.example.com"])
    host = {"host": "127.0.0.1:8080"}
    assert guard.refuse_cross_site("GET", {**host, "origin": "http://evil.example"}) is None  # reads are not checked
    accepted = [{}, {"sec-fetch-site": "same-origin"}, {"sec-fetch-site": "none"},
                {"origin": "http://127.0.0.1:8080"}, {"referer": "http://127.0.0.1:8080/jobs"},
                {"origin": "https://pgq.example.com"},  # a proxy that sends Host 127.0.0.1:8080
                {"sec-fetch-site": "same-origin", "origin": "https://pgq.example.com:8443"}]
    for headers in accepted:
        assert guard.refuse_cross_site("POST", {**host, **headers}) is None, headers
    refused = [{"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"},
               {"origin": "http://evil.example"}, {"origin": "http://127.0.0.1:9999"}, {"origin": "null"},
               {"origin": "file:///x"}, {"referer": "http://evil.example/"},
               {"sec-fetch-site": "cross-site", "origin": "http://127.0.0.1:8080"}]
    for headers in refused:
        assert "own pages" in (guard.refuse_cross_site("POST", {**host, **headers}) or ""), headers


def test_a_token_is_bound_to_a_session_the_server_issued_and_expires() -> None:
    now = [1_000_000.0]
    sessions = Sessions(lifetime=60, clock=lambda: now[0])
    cookie = sessions.issue()
    sid = sessions.session(cookie)
    assert sid is not None
    token = sessions.token(sid)
    assert sessions.check(cookie, token) is None
    assert sessions.session("invented") is None and sessions.session(sid + ".00") is None
    assert "no session" in (sessions.check("invented", token) or "")
    assert "no session" in (sessions.check(None, token) or "")
    other = sessions.issue()
    assert "wrong CSRF token" in (sessions.check(other, token) or "")  # another browser's token
    assert "wrong CSRF token" in (sessions.check(cookie, None) or "")
    expiry, mac = token.split(".")
    assert "wrong CSRF token" in (sessions.check(cookie, f"{int(expiry) + 3600}.{mac}") or "")  # expiry is signed
    now[0] += 61
    said = sessions.check(cookie, token) or ""
    assert "expired at 1970-01-12 13:47:40 UTC" in said and "valid for 1 min" in said and "reload" in said
    assert sessions.check(cookie, sessions.token(sid)) is None
    assert "no session" in (Sessions().check(cookie, token) or "")  # a restart (a new key) ends every session
    with pytest.raises(ValueError):
        Sessions(lifetime=0)


def test_only_this_servers_flash_messages_are_shown() -> None:
    sessions = Sessions()
    sealed = sessions.seal('{"ok": true, "text": "queue emails paused ✓"}')
    assert sessions.unseal(sealed) == '{"ok": true, "text": "queue emails paused ✓"}'
    raw = sealed.split(".")[0]
    for forged in ('{"ok": true, "text": "run curl evil | sh"}', raw + ".00", raw, "", None, Sessions().seal("x")):
        assert sessions.unseal(forged) is None, forged
