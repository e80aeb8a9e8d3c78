#!/usr/bin/env python3
"""Point a connection URL at another database on the same server.

    scripts/dburl.py "$DATABASE_URL" pgq_tap         ->  postgresql://...same server.../pgq_tap
    scripts/dburl.py "$DATABASE_URL" pgq_tap --env   ->  PGHOST=... PGPORT=... lines for `export`

The input may be a URL or a libpq key=value string.
"""

from __future__ import annotations

import shlex
import sys
from urllib.parse import quote, urlencode

from psycopg.conninfo import conninfo_to_dict

ENV = {"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD", "dbname": "PGDATABASE"}


def with_database(url: str, dbname: str) -> dict[str, str]:
    params = {k: str(v) for k, v in conninfo_to_dict(url).items()}
    params["dbname"] = dbname
    return params


def to_url(params: dict[str, str]) -> str:
    rest = dict(params)
    user = rest.pop("user", "")
    password = rest.pop("password", "")
    dbname = rest.pop("dbname")
    auth = quote(user, safe="") + (":" + quote(password, safe="") if password else "") + ("@" if user else "")
    query = urlencode(rest)
    return f"postgresql://{auth}/{quote(dbname, safe='')}" + (f"?{query}" if query else "")


def main() -> None:
    params = with_database(sys.argv[1], sys.argv[2])
    if "--env" in sys.argv[3:]:
        for key, var in ENV.items():
            if key in params:
                print(f"{var}={shlex.quote(params[key])}")
    else:
        print(to_url(params))


if __name__ == "__main__":
    main()
