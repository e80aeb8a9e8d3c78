#!/usr/bin/env python3
"""A worker process that claims jobs and holds them until it is killed.

    hold_claims.py URL QUEUE N session|owner-key

session:    claims on its connection with owner => q.session_key() (its own session key).
owner-key:  holds a session key on a separate "liveness" connection and claims
            on a second connection with owner => that key (a worker with a pool).
Prints the claimed ids on one line, then sleeps.
"""

from __future__ import annotations

import sys
import time

import psycopg


def main() -> None:
    url, queue, n, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    claiming = psycopg.connect(url, autocommit=True)
    if mode == "owner-key":
        liveness = psycopg.connect(url, autocommit=True)
        key = liveness.execute("select q.session_key()").fetchone()[0]
        rows = claiming.execute("select id from q.claim(%s, %s, owner => %s)", (queue, n, key)).fetchall()
    else:
        rows = claiming.execute("select id from q.claim(%s, %s, owner => q.session_key())", (queue, n)).fetchall()
    print(" ".join(str(r[0]) for r in rows), flush=True)
    time.sleep(3600)


if __name__ == "__main__":
    main()
