"""Error text that PostgreSQL accepts, from any exception: what ``q.fail``/``q.fail_many`` record.

A handler's exception message may hold what a ``text`` column cannot: a NUL
(binary data, C-library messages) or a lone surrogate (``surrogateescape``
bytes, a cut UTF-16 pair). psycopg refuses those before anything is sent, so
one such message sent in a worker's round would fail every outcome of that
round, again and again. :func:`clean` turns them into visible escapes
(``\\x00``, ``\\udcff``) and leaves every other character as it is. An
exception whose ``__str__`` itself raises is described by its type's name
(:func:`message`).
"""

from __future__ import annotations

NUL = "\x00"


def clean(text: str) -> str:
    """``text`` as valid UTF-8 without NUL: NUL becomes ``\\x00``, a lone surrogate ``\\udcXX``."""
    if NUL in text:
        text = text.replace(NUL, "\\x00")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def message(exc: BaseException) -> str:
    """``str(exc)``, cleaned; "" when its ``__str__`` raises (callers then show the type's name)."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not break the one who reports it
        return ""
    return clean(text) if isinstance(text, str) else ""


def described(exc: BaseException) -> str:
    """``ExceptionType: message``, or just ``ExceptionType`` when the message is empty or cannot be had."""
    text = message(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
