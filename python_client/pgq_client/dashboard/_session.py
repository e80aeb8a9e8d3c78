"""Sessions and CSRF tokens: what makes a POST this browser's own, recently loaded page.

The server issues every session: the cookie is ``<id>.<mac>``, a random id
and an HMAC of it under a key made when the dashboard starts, so a value a
client invents (or one from before a restart) is no session at all and gets a
fresh one. A page's CSRF token is ``<expiry>.<mac>``: an HMAC of the session id
and an expiry (Unix seconds), so it is worth nothing with another session's
cookie and nothing after ``lifetime`` seconds. No I/O here: the clock is a
parameter, so the rules are tested without a server.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from datetime import datetime, timezone

# How long a page's actions stay valid (pages that refresh themselves get new tokens every few seconds).
TOKEN_LIFETIME = 3600.0


class Sessions:
    """Issues session cookies and CSRF tokens and checks them; ``check`` says why a POST is refused."""

    def __init__(self, *, key: bytes | None = None, lifetime: float = TOKEN_LIFETIME,
                 clock: Callable[[], float] = time.time) -> None:
        if lifetime <= 0:
            raise ValueError(f"the token lifetime must be positive, got {lifetime}")
        self.key = key if key is not None else secrets.token_bytes(32)
        self.lifetime = lifetime
        self.clock = clock

    def _mac(self, purpose: str, *parts: str) -> str:
        message = "\0".join((purpose, *parts)).encode()
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def issue(self) -> str:
        """A new session cookie value."""
        sid = secrets.token_urlsafe(18)
        return f"{sid}.{self._mac('session', sid)}"

    def session(self, cookie: str | None) -> str | None:
        """The session id of a cookie this server issued (since it started); None for anything else."""
        if not cookie or cookie.count(".") != 1:
            return None
        sid, mac = cookie.split(".")
        return sid if sid and hmac.compare_digest(mac, self._mac("session", sid)) else None

    def token(self, sid: str) -> str:
        """The CSRF token of a page rendered now for session ``sid``."""
        expiry = int(self.clock() + self.lifetime)
        return f"{expiry}.{self._mac('csrf', sid, str(expiry))}"

    def seal(self, text: str) -> str:
        """``text`` signed for a cookie (the flash message), so only this server's messages are shown."""
        raw = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
        return f"{raw}.{self._mac('flash', raw)}"

    def unseal(self, value: str | None) -> str | None:
        """The text of a value :meth:`seal` made; None for anything else."""
        if not value or value.count(".") != 1:
            return None
        raw, mac = value.split(".")
        if not hmac.compare_digest(mac, self._mac("flash", raw)):
            return None
        try:
            return base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
        except ValueError:
            return None

    def check(self, cookie: str | None, token: str | None) -> str | None:
        """None if ``token`` is this session's and unexpired; else why not, in words for the person who clicked."""
        sid = self.session(cookie)
        if sid is None:
            return ("this browser has no session of this dashboard (cookies blocked, or the dashboard restarted"
                    " since the page was loaded): reload the page and try again")
        if not token or token.count(".") != 1:
            return "missing or wrong CSRF token: reload the page and try again"
        expiry, mac = token.split(".")
        if not expiry.isdigit() or not hmac.compare_digest(mac, self._mac("csrf", sid, expiry)):
            return "missing or wrong CSRF token: reload the page and try again"
        if int(expiry) <= self.clock():
            at = datetime.fromtimestamp(int(expiry), timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
            return (f"this page's CSRF token expired at {at} (a page's actions stay valid for"
                    f" {_span(self.lifetime)}): reload the page and try again")
        return None


def _span(seconds: float) -> str:
    s = int(seconds)
    if s % 3600 == 0:
        return f"{s // 3600} h"
    if s % 60 == 0:
        return f"{s // 60} min"
    return f"{s} s"
