"""Admin calls never wait long behind another session's open transaction.

Up to 0007, q.pause and q.configure waited without any timeout behind a
transaction holding their queue's row: another admin's open configure, or a
worker's claim left open on a full limited queue (the claim updates
flow_waiting). From 0008 every admin call sets lock_timeout = 2 s and raises
55P03 naming what it waited for and the oldest transactions holding row locks
on pgq's tables, so an operator sees who to end.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest


def test_pause_behind_an_open_configure_gives_up_after_two_seconds_naming_the_holder(
    conn: psycopg.Connection[Any], db_url: str
) -> None:
    conn.execute("select q.configure('locked', lease => '1 minute')")
    holder = psycopg.connect(db_url, application_name="open-configure")
    try:
        holder.execute("select q.configure('locked', lease => '2 minutes')")  # open: holds the queue's row
        conn.execute("set lock_timeout = 0")  # the caller's own setting does not matter: the call sets its own
        t0 = time.monotonic()
        with pytest.raises(psycopg.errors.LockNotAvailable) as caught:
            conn.execute("select q.pause('locked')")
        waited = time.monotonic() - t0
        message = str(caught.value)
        assert "q.pause gave up after waiting 2s for a lock on queue 'locked'" in message, message
        assert f"pid {holder.info.backend_pid} (role " in message and "open-configure" in message, message
        assert 1.5 < waited < 30, waited  # it gave up rather than waiting for the holder
    finally:
        holder.rollback()
        holder.close()
    conn.execute("select q.pause('locked')")  # and once the holder is gone it goes through
    assert conn.execute("select paused from q.stats() where queue = 'locked'").fetchone() == (True,)


def test_every_admin_call_sets_a_lock_timeout(conn: psycopg.Connection[Any]) -> None:
    rows = conn.execute(
        "select p.proname from pg_catalog.pg_proc p where p.pronamespace = 'q'::regnamespace"
        " and p.proname = any(%s) and not ('lock_timeout=2s' = any(coalesce(p.proconfig, '{}')))",
        (["pause", "resume", "purge", "cancel_jobs", "retry_dead", "delete_queue", "cancel", "retry",
          "schedule", "unschedule", "pause_schedule", "resume_schedule"],)).fetchall()
    assert rows == []
