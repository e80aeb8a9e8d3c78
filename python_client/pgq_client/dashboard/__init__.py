"""``pgq dashboard``: a web dashboard for pgq (the ``dashboard`` extra: starlette, jinja2, uvicorn).

    pgq dashboard                      # http://127.0.0.1:8080/ (binds 127.0.0.1 unless told otherwise)
    pgq dashboard --read-only          # no actions, whatever the role may do
    pgq dashboard --allowed-host pgq.example.com   # a name it answers to besides localhost
    pgq dashboard --read-url postgresql://standby/app  # pages read from a standby, actions to the primary

Pages: queues (depth, running, dead, throughput sparkline, pause/resume),
jobs (filters by queue, state and text, keyset paging), a job (payload,
every attempt's error, why it is not running), dead jobs (retry one or all
of a queue), health, schedules, limits. It reads and acts only through pgq's
SQL functions (reads: :mod:`pgq_client.observe`; actions: the thin client), so
its database role decides what it may do: ``pgq_admin`` acts, a role that may only read gets a read-only
dashboard. It has no login of its own: put it behind your proxy's
authentication (see the README, "Operating pgq").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["create_app", "serve"]


def create_app(database_url: str | Sequence[str], *, read_only: bool = False, pool_size: int = 4,
               query_timeout: float = 5.0, allowed_hosts: Iterable[str] = (), bound_host: str | None = None,
               token_lifetime: float = 3600.0, max_searches: int = 2, read_url: str | None = None) -> Any:
    """The ASGI app (Starlette); run it with any ASGI server.

    It answers only to the Host names localhost, 127.0.0.1, [::1], ``bound_host``
    (the address it listens on, unless a wildcard) and ``allowed_hosts`` (``"*"``:
    any); a page's actions (its CSRF token) stay valid for ``token_lifetime``
    seconds; at most ``max_searches`` text searches run at once (per database).
    database_url: one database, or a list of several: then an index of them at ``/``
    and each one's dashboard at ``/db/<name>/`` (``docs/manual/several-databases.md``).
    read_url: pages read from this database instead (a streaming standby of database_url;
    the header says how stale it is); actions still go to database_url. One database only.
    """
    from ._app import Dashboard, make_app

    urls = [database_url] if isinstance(database_url, str) else list(database_url)
    settings: dict[str, Any] = {"read_only": read_only, "pool_size": pool_size, "query_timeout": query_timeout,
                                "allowed_hosts": allowed_hosts, "bound_host": bound_host,
                                "token_lifetime": token_lifetime, "max_searches": max_searches}
    if read_url is not None and len(urls) != 1:
        raise ValueError("read_url goes with one database_url, not several")
    if len(urls) == 1:
        return make_app(Dashboard(urls[0], read_url=read_url, **settings))
    from ..worker._databases import labels
    from ._several import make_several_app

    return make_several_app({name: Dashboard(url, label=name, **settings)
                             for name, url in zip(labels(urls), urls, strict=True)})


def serve(database_url: str | Sequence[str], *, host: str = "127.0.0.1", port: int = 8080, read_only: bool = False,
          root_path: str = "", log_level: str = "warning", allowed_hosts: Iterable[str] = (),
          token_lifetime: float = 3600.0, max_searches: int = 2, read_url: str | None = None) -> None:
    """Serve the dashboard with uvicorn until SIGTERM/SIGINT (answering to ``host`` too, see :func:`create_app`)."""
    import uvicorn

    app = create_app(database_url, read_only=read_only, allowed_hosts=allowed_hosts, bound_host=host,
                     token_lifetime=token_lifetime, max_searches=max_searches, read_url=read_url)
    uvicorn.run(app, host=host, port=port, root_path=root_path, log_level=log_level, server_header=False,
                proxy_headers=False)
