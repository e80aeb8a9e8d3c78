"""Which requests the dashboard answers: a Host allow-list (every request) and a same-origin rule (every POST).

The Host check defeats DNS rebinding: a page of ``attacker.example`` whose
name the attacker points at 127.0.0.1 reaches a dashboard behind an SSH
tunnel, but its requests say ``Host: attacker.example``. Allowed: localhost,
127.0.0.1, [::1], the address the dashboard listens on (unless a wildcard such
as 0.0.0.0), and the names given with ``--allowed-host`` (``*`` turns the check
off). The port is not compared.

The same-origin rule follows OWASP's CSRF cheat sheet: the browser's
``Sec-Fetch-Site`` decides when it is sent (``same-origin`` and ``none``, a
user's own navigation, pass; ``same-site`` and ``cross-site`` are refused: a
page on another port of localhost is same-site); without it, ``Origin`` (or
failing that ``Referer``) must name this dashboard: the request's Host, or one
of the ``--allowed-host`` names (a proxy that rewrites Host). A request with
none of the three is no browser's cross-site request (curl, a script) and
is left to the CSRF token. No I/O here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

LOCAL = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::", "*")
_HOST = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9_.-]+))(?::(?P<port>[0-9]{1,5}))?$")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def host_name(header: str | None) -> str | None:
    """The name of a Host header (lower case, no port, no brackets, no trailing dot); None if malformed."""
    found = _HOST.match(header or "")
    if found is None:
        return None
    name = found.group("v6") or found.group("name")
    return name.lower().rstrip(".") or None


def _normal(name: str) -> str:
    """A configured name as :func:`host_name` reads a header (a port or brackets given with it are dropped)."""
    name = name.strip()
    if name in WILDCARDS:
        return name
    return host_name(name) or name.lower().rstrip(".")


class Guard:
    """The Host allow-list and the same-origin rule of one dashboard."""

    def __init__(self, *, bound_host: str | None = None, allowed_hosts: Iterable[str] = ()) -> None:
        extra = [_normal(h) for h in allowed_hosts if h.strip()]
        self.any_host = "*" in extra
        self.extra = frozenset(h for h in extra if h != "*")
        names = set(LOCAL) | self.extra
        if bound_host is not None and _normal(bound_host) not in WILDCARDS:
            names.add(_normal(bound_host))
        self.hosts = frozenset(names)

    def refuse_host(self, header: str | None) -> str | None:
        """None if the dashboard answers to this Host header; else the message of the 400."""
        if self.any_host:
            return None
        name = host_name(header)
        if name is not None and name in self.hosts:
            return None
        shown = (header or "")[:100]
        return (f"400 Bad Request: this dashboard does not answer to Host {shown!r}. It answers to localhost,"
                " 127.0.0.1, [::1], the address it listens on, and the names given with"
                " `pgq dashboard --allowed-host NAME` (the name people type in their browser, or that a proxy sends).")

    def refuse_cross_site(self, method: str, headers: Mapping[str, str]) -> str | None:
        """None if a request may act (a safe method, or a POST from this dashboard's pages); else why not."""
        if method.upper() in SAFE_METHODS:
            return None
        site = headers.get("sec-fetch-site")
        if site is not None:
            if site in ("same-origin", "none"):
                return None
            return (f"refused a {site[:20]} request (Sec-Fetch-Site: {site[:20]}): actions must come from this"
                    " dashboard's own pages")
        for header in ("origin", "referer"):
            source = headers.get(header)
            if source is None:
                continue
            if self._ours(source, headers.get("host")):
                return None
            return (f"refused a cross-site request ({header.capitalize()}: {source[:100]}): actions must come from"
                    " this dashboard's own pages")
        return None

    def _ours(self, source: str, host: str | None) -> bool:
        if source == "null":
            return False
        try:
            parts = urlsplit(source)
            netloc, name = parts.netloc.lower(), (parts.hostname or "").rstrip(".")
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not netloc:
            return False
        return netloc == (host or "").lower() or name in self.extra
