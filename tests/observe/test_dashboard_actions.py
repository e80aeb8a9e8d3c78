"""Every dashboard action changes what it says it changes, over HTTP without a browser (the Chromium test clicks
them too): the actions call the thin client, and the bulk retry of dead jobs works before revision 0006 as well."""

from __future__ import annotations

from pathlib import Path

import psycopg
from dashboard_support import dashboard, jobs_in_every_state, state_of
from pgq_client import observe
from pgq_client.dashboard._actions import retry_dead
from test_dashboard_access import Browserless, is_paused, token


def schedule_paused(url: str, name: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select paused from q.schedules(%s)", (name,)).fetchone()
        assert row is not None
        return bool(row[0])


def test_each_action_changes_the_database_and_says_what_it_did(db_url: str, tmp_path: Path) -> None:
    made = jobs_in_every_state(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.schedule(name => 'nightly', cron => '0 3 * * *', queue => 'emails', payload => '{}')")
    with dashboard(db_url, tmp_path / "d.log") as base:
        me = Browserless()
        status, page = me.get(base + "/")
        assert status == 200
        csrf = token(page)

        def act(path: str, back: str, said: str, **form: str) -> None:
            assert me.post(base + path, {"csrf": csrf, **form}) == 303
            status, page = me.get(base + back)
            assert status == 200 and said in page, f"{path}: {said!r} not on {back}"

        act("/queues/emails/pause", "/", "queue emails paused")
        assert is_paused(db_url)
        act("/queues/emails/resume", "/", "queue emails resumed")
        assert not is_paused(db_url)

        act("/schedules/pause", "/schedules", "schedule nightly paused", name="nightly")
        assert schedule_paused(db_url, "nightly")
        act("/schedules/resume", "/schedules", "schedule nightly resumed", name="nightly")
        assert not schedule_paused(db_url, "nightly")
        act("/schedules/pause", "/schedules", "no schedule nosuch", name="nosuch")

        act(f"/jobs/{made.dead_timeout}/retry", f"/jobs/{made.dead_timeout}",
            f"job {made.dead_timeout} is waiting again")
        assert state_of(db_url, made.dead_timeout) == "waiting"
        victim = made.waiting[0]
        act(f"/jobs/{victim}/cancel", f"/jobs/{victim}", f"job {victim} cancelled")
        assert state_of(db_url, victim) == "cancelled"
        act(f"/jobs/{victim}/cancel", f"/jobs/{victim}", f"job {victim} had already finished")

        act("/dead/retry", "/dead", "3 dead job(s) of emails waiting again", queue="emails",
            error_contains="mailbox")
        assert {state_of(db_url, j) for j in made.dead_mailbox} == {"waiting"}


def test_the_bulk_retry_before_revision_0006_retries_dead_jobs_one_at_a_time_and_says_when_more_match(
    db_url: str,
) -> None:
    made = jobs_in_every_state(db_url)
    before_0006 = observe.Features({"retry": True, "cancel": True, "pause": True, "resume": True})
    with psycopg.connect(db_url, autocommit=True) as conn:
        done = retry_dead(conn, before_0006, "emails", error_contains="MAILBOX", limit=2)
        assert (done.count, done.skipped, done.more) == (2, 0, True)
        done = retry_dead(conn, before_0006, "emails", error_contains="mailbox", limit=2)
        assert (done.count, done.skipped, done.more) == (1, 0, False)
        assert {state_of(db_url, j) for j in made.dead_mailbox} == {"waiting"}
        assert state_of(db_url, made.dead_timeout) == "dead", "its error does not match"
        done = retry_dead(conn, observe.features(conn), "emails")  # q.retry_dead (revision 0006)
        assert (done.count, done.skipped, done.more) == (1, 0, False)
    assert state_of(db_url, made.dead_timeout) == "waiting"
