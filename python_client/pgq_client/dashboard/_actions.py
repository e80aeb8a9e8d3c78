"""The dashboard's bulk action that is more than one thin-client call: retry a queue's dead jobs on any revision.

The other actions (pause, resume, retry, cancel, pause and resume a schedule) are one call each of the
thin client (:mod:`pgq_client._client`), made by the pages' handlers; :mod:`pgq_client.observe` only reads.
"""

from __future__ import annotations

from typing import Any

import psycopg

from .. import _client as calls
from .. import observe
from ..records import BulkResult


def retry_dead(conn: psycopg.Connection[Any], feats: observe.Features, queue: str, *,
               error_contains: str | None = None, limit: int = 1000) -> BulkResult:
    """Put up to ``limit`` dead jobs of a queue back, those whose last error contains ``error_contains`` if given.

    With revision 0006: ``q.retry_dead`` (one statement, skips jobs whose dedup
    key a live job holds). Before it: one ``q.retry`` per dead job from
    ``q.jobs``, in one transaction (all or nothing).
    """
    if feats.may("retry_dead"):
        return calls.retry_dead(conn, queue, error_contains=error_contains, max_rows=limit)
    needle = error_contains.lower() if error_contains else None
    with conn.transaction():
        dead = observe.jobs(conn, queue=queue, state="dead", max_rows=observe.JOBS_MAX_ROWS if needle else limit + 1)
        chosen = [r for r in dead if needle is None or needle in observe.last_error(r).lower()]
        for row in chosen[:limit]:
            calls.retry(conn, row["id"])
    return BulkResult(min(len(chosen), limit), len(chosen) > limit)
