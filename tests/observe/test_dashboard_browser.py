"""The dashboard in a real browser (Debian's chromium + chromedriver, headless, driven by selenium) against a
live database with jobs in every state: clicks change the database, filters and paging show what it holds.

PGQ_UPDATE_SCREENSHOTS=1 saves the screenshots into docs/screenshots/ (the README shows them); otherwise
they go to the test's temporary folder (they change with every run: ages, ids).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from dashboard_support import SCREENSHOTS, chromium, dashboard, installed, jobs_in_every_state, state_of
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

# Chromium reads elements while the page navigates and refreshes itself: beside parallel tests a read once
# straddled a navigation (WebDriverException "Node with given id does not belong to the document"), so
# these run alone, as before pytest -n (make test runs serial tests alone).
pytestmark = pytest.mark.serial


@pytest.fixture
def browser() -> Any:
    driver = chromium()
    yield driver
    driver.quit()


def shots(tmp_path: Path) -> Path:
    return SCREENSHOTS if os.environ.get("PGQ_UPDATE_SCREENSHOTS") == "1" else tmp_path


def paused(url: str, queue: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select paused from q.stats() where queue = %s", (queue,)).fetchone()
        assert row is not None
        return bool(row[0])


def shown_ids(browser: Any) -> list[int]:
    return [int(r.get_attribute("data-job")) for r in browser.find_elements(By.CSS_SELECTOR, "#jobs tbody tr")]


def flash(browser: Any, expected: str | None = None) -> str:
    """The flash message; with `expected`, once it says that. (After a click the previous page's
    message is still there until the next page replaces it: reading it then raced the navigation.)"""
    def read(b: Any) -> str | bool:
        try:
            text = str(b.find_element(By.ID, "flash").text)
        except (NoSuchElementException, StaleElementReferenceException):
            return False
        except WebDriverException as exc:  # the read landed mid-navigation: "does not belong to the document"
            if "does not belong to the document" in str(exc):
                return False
            raise
        return text if expected is None or text == expected else False
    try:
        return str(WebDriverWait(browser, 10).until(read))
    except TimeoutException:
        return str(read(browser))


def pause_auto_refresh(browser: Any) -> None:
    """Click the header's toggle to paused (the browser remembers it for every page)."""
    toggle = WebDriverWait(browser, 10).until(ec.visibility_of_element_located((By.ID, "refresh-toggle")))
    if "paused" not in toggle.text:
        toggle.click()
    assert toggle.text == "Auto-refresh: paused"


def test_the_dashboard_in_chromium_pauses_retries_cancels_and_filters_for_real(
        db_url: str, tmp_path: Path, browser: Any) -> None:
    made = jobs_in_every_state(db_url)
    # Revision 0006 (observability) adds what some pages show; before it they say what they wait for.
    observability = installed(db_url, "job_page")
    out = shots(tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    wait = WebDriverWait(browser, 15)
    with dashboard(db_url, tmp_path / "dashboard.log") as base:
        # Queues: what q.stats says, row by row.
        browser.get(base + "/")
        row = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-queue="emails"]')))
        pause_auto_refresh(browser)  # (the next test watches it work) no row is swapped under a click here
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        assert cells[:6] == ["emails", "active", "5", "1", "1", "4"], cells
        if observability:  # throughput: the 2 completed jobs of this minute, as a sparkline (q_data.throughput)
            assert row.find_elements(By.CSS_SELECTOR, "svg.spark") and cells[7].endswith("2"), cells
        browser.save_screenshot(str(out / "dashboard-queues.png"))

        # Pause a queue: the database says paused, the page offers Resume.
        row.find_element(By.CSS_SELECTOR, "button.pause").click()
        assert flash(browser, "queue emails paused") == "queue emails paused"
        assert paused(db_url, "emails")
        row = browser.find_element(By.CSS_SELECTOR, 'tr[data-queue="emails"]')
        assert "paused" in row.text and row.find_elements(By.CSS_SELECTOR, "button.resume")

        # Dead jobs of the queue; retry one: it is waiting again.
        browser.get(base + "/dead?queue=emails")
        wait.until(ec.presence_of_element_located((By.ID, "jobs")))
        assert sorted(shown_ids(browser)) == sorted([*made.dead_mailbox, made.dead_timeout])
        browser.save_screenshot(str(out / "dashboard-dead.png"))
        first = made.dead_mailbox[0]
        browser.find_element(By.CSS_SELECTOR, f'tr[data-job="{first}"] button.retry').click()
        assert flash(browser, f"job {first} is waiting again") == f"job {first} is waiting again"
        assert state_of(db_url, first) == "waiting"
        assert first not in shown_ids(browser)  # back on the dead list, without it

        # Filter the job list: state dead, text in the error.
        browser.get(base + "/jobs")
        Select(wait.until(ec.presence_of_element_located((By.ID, "filter-state")))).select_by_value("dead")
        browser.find_element(By.ID, "filter-text").send_keys("mailbox")
        browser.find_element(By.ID, "filter-apply").click()
        wait.until(ec.url_contains("text=mailbox"))
        assert sorted(shown_ids(browser)) == sorted(made.dead_mailbox[1:])
        Select(browser.find_element(By.ID, "filter-state")).select_by_value("running")
        text = browser.find_element(By.ID, "filter-text")
        text.clear()
        text.send_keys("busy@example.com")  # text in the payload
        browser.find_element(By.ID, "filter-apply").click()
        wait.until(ec.url_contains("busy"))
        assert shown_ids(browser) == [made.running]

        # Keyset paging: 60 waiting jobs of a queue, 50 a page, no job twice; in claim order through
        # q.job_page (revision 0006), newest first through q.jobs before it.
        browser.get(base + "/jobs?queue=bulk")
        page1 = shown_ids(browser)
        browser.find_element(By.ID, "more").click()
        wait.until(ec.url_contains("after="))
        page2 = shown_ids(browser)
        assert page1 + page2 == sorted(made.bulk, reverse=not observability) and len(page1) == 50
        assert not browser.find_elements(By.ID, "more")

        # A job's page: payload and every attempt's error; retry from there.
        second = made.dead_mailbox[1]
        browser.get(base + f"/jobs/{second}")
        assert '"to": "full1@example.com"' in browser.find_element(By.ID, "payload").text
        assert "SMTPError: mailbox full" in browser.find_element(By.CSS_SELECTOR, "section.attempt pre").text
        if observability:
            assert browser.find_element(By.CSS_SELECTOR, "#explain code").text == "dead"  # q.explain
        browser.save_screenshot(str(out / "dashboard-job.png"))

        # Cancel a waiting job from its page (the confirm dialog is accepted).
        victim = made.waiting[0]
        browser.get(base + f"/jobs/{victim}")
        browser.find_element(By.CSS_SELECTOR, "button.cancel").click()
        wait.until(ec.alert_is_present()).accept()
        assert flash(browser, f"job {victim} cancelled") == f"job {victim} cancelled"
        assert state_of(db_url, victim) == "cancelled"

        # Bulk: every dead job of the queue back at once.
        browser.get(base + "/dead?queue=emails")
        browser.find_element(By.CSS_SELECTOR, ".bulk button.retry").click()
        wait.until(ec.alert_is_present()).accept()
        assert flash(browser, "3 dead job(s) of emails waiting again") == "3 dead job(s) of emails waiting again"
        assert all(state_of(db_url, j) == "waiting" for j in [*made.dead_mailbox, made.dead_timeout])

        # Resume the queue.
        browser.get(base + "/")
        browser.find_element(By.CSS_SELECTOR, 'tr[data-queue="emails"] button.resume').click()
        assert flash(browser, "queue emails resumed") == "queue emails resumed"
        assert not paused(db_url, "emails")

        # Limits: a queue at its concurrency limit shows as full, with the jobs its keys hold back.
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("select q.configure('reports', concurrency => 1, key_concurrency => 1)")
            conn.execute("select q.enqueue('reports', '{}', concurrency_key => 'acme') from generate_series(1, 3)")
            conn.execute("select count(*) from q.claim('reports', 1)")
        browser.get(base + "/limits")
        row = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '#limits tr[data-queue="reports"]')))
        assert row.find_element(By.CSS_SELECTOR, "td.concurrency").text == "1 / 1 full"
        assert row.find_element(By.CSS_SELECTOR, "td.held").text == "2"
        assert not browser.find_elements(By.CSS_SELECTOR, 'tr[data-queue="emails"]')  # no limit, not listed
        if installed(db_url, "flow_claim_keyed"):  # the per-key rate (revision 0007)
            assert row.find_element(By.CSS_SELECTOR, "td.key-rate").text == "–"
            with psycopg.connect(db_url, autocommit=True) as conn:
                conn.execute("select q.configure('reports', key_rate => 10, key_per => '1 minute')")
            browser.get(base + "/limits")
            row = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '#limits tr[data-queue="reports"]')))
            assert row.find_element(By.CSS_SELECTOR, "td.key-rate").text == "10 per 0:01:00"
        if installed(db_url, "busy_keys"):  # revision 0009: running jobs of a keyed queue, the busiest keys
            with psycopg.connect(db_url, autocommit=True) as conn:
                conn.execute("select q.configure('tenants', key_concurrency => 2)")
                conn.execute("select q.enqueue('tenants', '{}', concurrency_key => k)"
                             " from unnest(array['acme', 'acme', 'acme', 'acme', 'acme', '<b>tiny</b>']) k")
                claimed = [r[0] for r in conn.execute("select id from q.claim('tenants', 6)").fetchall()]
                held = conn.execute("select id from q.jobs('tenants') where concurrency_key = 'acme'"
                                    " and state = 'waiting' order by id limit 1").fetchone()[0]
                acme_running = sorted(r[0] for r in conn.execute(
                    "select id from q.jobs('tenants') where concurrency_key = 'acme' and state = 'running'"))
            assert len(claimed) == 3  # acme's 2 slots and the other key's 1; 3 of acme's jobs are held
            browser.get(base + "/limits")
            row = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '#limits tr[data-queue="tenants"]')))
            assert row.find_element(By.CSS_SELECTOR, "td.concurrency").text == "3 / unlimited"  # said 0 before 0009
            assert row.find_element(By.CSS_SELECTOR, "td.held").text == "3"
            keys = browser.find_elements(By.CSS_SELECTOR, '#busy-keys tr[data-queue="tenants"]')
            assert [k.get_attribute("data-key") for k in keys] == ["acme", "<b>tiny</b>"]  # busiest first, escaped
            assert [c.text for c in keys[0].find_elements(By.TAG_NAME, "td")][1:] == ["acme", "2 / 2 full", "2", "3"]
            assert [c.text for c in keys[1].find_elements(By.TAG_NAME, "td")][1:] == ["<b>tiny</b>", "1 / 2", "1", "0"]
            browser.save_screenshot(str(out / "dashboard-limits.png"))
            # A held job's page: its key, and the jobs holding the key's slots as links.
            browser.get(base + f"/jobs/{held}")
            assert wait.until(ec.presence_of_element_located((By.ID, "concurrency-key"))).text.startswith("acme")
            blocking = browser.find_elements(By.CSS_SELECTOR, "#explain a.blocking")
            assert sorted(int(a.text) for a in blocking) == acme_running, [a.text for a in blocking]
            target = blocking[0].text
            blocking[0].click()
            wait.until(ec.url_contains(f"/jobs/{target}"))
            assert browser.find_element(By.TAG_NAME, "h1").text.startswith(f"Job {target}")

        # Health (q.health): every check of a fresh install; pages whose SQL is not installed say so.
        browser.get(base + "/health")
        if observability:
            checks = {r.get_attribute("data-check") for r in browser.find_elements(By.CSS_SELECTOR, "tr[data-check]")}
            assert {"server_settings", "table_settings", "vacuum", "xmin_horizon"} <= checks, checks
            browser.save_screenshot(str(out / "dashboard-health.png"))
        else:
            assert browser.find_elements(By.ID, "placeholder")
        for path in ("/schedules",):
            browser.get(base + path)
            assert (browser.find_elements(By.ID, "placeholder") or browser.find_elements(By.TAG_NAME, "table")
                    or browser.find_elements(By.CSS_SELECTOR, "p.empty")), path  # (schedules: none defined)
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


FAILED_IN_HANDLER = """Traceback (most recent call last):
  File "/app/.venv/lib/python3.11/site-packages/pgq_client/worker/_worker.py", line 680, in run_job
    value = handler(ctx, payload)
  File "/app/tasks.py", line 12, in send
    raise ValueError("bad address")
ValueError: bad address
"""


def waiting_in(browser: Any, queue: str) -> str:
    # The auto-refresh swaps the table in place: a cell found just before a swap is stale when read.
    for _ in range(5):
        try:
            return str(browser.find_element(By.CSS_SELECTOR, f'tr[data-queue="{queue}"] td:nth-child(3)').text)
        except StaleElementReferenceException:
            time.sleep(0.05)
    return str(browser.find_element(By.CSS_SELECTOR, f'tr[data-queue="{queue}"] td:nth-child(3)').text)


def schedule_paused(url: str, name: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select paused from q.schedules(name => %s)", (name,)).fetchone()
        assert row is not None
        return bool(row[0])


def test_the_dashboard_in_chromium_refreshes_itself_pauses_schedules_and_opens_a_job_by_id(
        db_url: str, tmp_path: Path, browser: Any) -> None:
    made = jobs_in_every_state(db_url)
    observability = installed(db_url, "job_page")
    out = shots(tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    wait = WebDriverWait(browser, 15)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.schedule(name => 'nightly-report', cron => '0 3 * * *', queue => 'emails',"
                     " payload => '{\"report\": \"nightly\", \"to\": \"ops@example.com\"}',"
                     " timezone => 'Europe/Berlin')")
        conn.execute("select q.schedule(name => 'heartbeat', cron => null, every => '30 seconds', queue => 'sms',"
                     " payload => '{}')")
        # A job that died, was retried and died again: two runs of attempt 1.
        conn.execute("select q.configure('once', max_attempts => 1)")
        twice = conn.execute("select q.enqueue('once', '{\"n\": 1}')").fetchone()[0]  # type: ignore[index]
        for n in range(2):
            token = conn.execute("select token from q.claim('once', 1)").fetchone()[0]  # type: ignore[index]
            conn.execute("select q.fail(%s, %s, %s)", (twice, token, FAILED_IN_HANDLER.replace("bad", f"bad{n}")))
            if n == 0:
                conn.execute("select q.retry(%s)", (twice,))
    with dashboard(db_url, tmp_path / "dashboard.log") as base:
        # Schedules: readable columns, yes/no, times with their zone, no overflow at 1280 px; pause and resume.
        browser.get(base + "/schedules")
        table = wait.until(ec.presence_of_element_located((By.ID, "schedules")))
        heads = [h.text for h in table.find_elements(By.CSS_SELECTOR, "thead th")]
        assert heads[:7] == ["NAME", "QUEUE", "RUNS", "TIME ZONE", "PAUSED", "NEXT RUN", "LAST RUN"], heads  # CSS caps
        row = browser.find_element(By.CSS_SELECTOR, 'tr[data-schedule="nightly-report"]')
        assert row.find_element(By.CSS_SELECTOR, "td.paused").text == "no"
        nxt = row.find_element(By.CSS_SELECTOR, "td.next").text
        assert " UTC" in nxt and "Europe/Berlin" in nxt and "03:00:00 Europe/Berlin" in nxt, nxt
        assert row.find_element(By.CSS_SELECTOR, "td.next .local").text  # the browser's own time
        assert "every 30 s" in browser.find_element(By.CSS_SELECTOR, 'tr[data-schedule="heartbeat"]').text
        assert "False" not in table.text and "True" not in table.text and "next_fire_at" not in table.text
        assert browser.execute_script(
            "const s = document.querySelector('.scroll'); return s.scrollWidth <= s.clientWidth"
            " && document.documentElement.scrollWidth <= window.innerWidth")
        browser.save_screenshot(str(out / "dashboard-schedules.png"))
        row.find_element(By.CSS_SELECTOR, "button.pause").click()
        assert flash(browser, "schedule nightly-report paused") == "schedule nightly-report paused"
        assert schedule_paused(db_url, "nightly-report")
        row = browser.find_element(By.CSS_SELECTOR, 'tr[data-schedule="nightly-report"]')
        assert row.find_element(By.CSS_SELECTOR, "td.paused").text == "yes"
        row.find_element(By.CSS_SELECTOR, "button.resume").click()
        assert flash(browser, "schedule nightly-report resumed") == "schedule nightly-report resumed"
        assert not schedule_paused(db_url, "nightly-report")

        # Auto-refresh: the queue page shows new jobs without a reload; paused, it does not; on again, it does.
        browser.get(base + "/")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-queue="sms"]')))
        toggle = browser.find_element(By.ID, "refresh-toggle")
        assert toggle.text == "Auto-refresh: every 5 s"
        browser.execute_script("window.pgqNotReloaded = true")
        assert waiting_in(browser, "sms") == "2"
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("select q.enqueue('sms', '{}') from generate_series(1, 3)")
        WebDriverWait(browser, 12).until(lambda b: waiting_in(b, "sms") == "5")
        assert browser.execute_script("return window.pgqNotReloaded === true")  # swapped in place, not reloaded
        toggle.click()
        assert toggle.text == "Auto-refresh: paused"
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("select q.enqueue('sms', '{}')")
        time.sleep(6.5)
        assert waiting_in(browser, "sms") == "5"
        toggle.click()
        WebDriverWait(browser, 12).until(lambda b: waiting_in(b, "sms") == "6")

        # Not while a form is being filled in: the typed text stays.
        browser.get(base + "/jobs")
        typed = wait.until(ec.presence_of_element_located((By.ID, "filter-text")))
        typed.send_keys("half-typed")
        browser.find_element(By.TAG_NAME, "h1").click()  # focus elsewhere: the form is still edited
        time.sleep(6.5)
        assert browser.find_element(By.ID, "filter-text").get_attribute("value") == "half-typed"
        assert browser.find_element(By.ID, "page").get_attribute("data-refreshed") is None

        # Job-id search: a number opens that job; an unknown one is searched as text and says so.
        typed = browser.find_element(By.ID, "filter-text")
        typed.clear()
        typed.send_keys(str(made.running))
        browser.find_element(By.ID, "filter-apply").click()
        wait.until(ec.url_matches(rf"/jobs/{made.running}$"))
        assert browser.find_element(By.TAG_NAME, "h1").text.startswith(f"Job {made.running}")
        browser.get(base + "/jobs?text=%23999999")
        assert "No job 999999" in wait.until(ec.presence_of_element_located((By.ID, "no-job"))).text

        # A job retried once: errors newest first, attempts numbered on across the retry, the exception line
        # (not pgq's frame) in the summary.
        browser.get(base + f"/jobs/{twice}")
        sections = browser.find_elements(By.CSS_SELECTOR, "section.attempt")
        assert [s.get_attribute("data-attempt") for s in sections] == ["2", "1"]
        assert "after retry 1" in sections[0].find_element(By.TAG_NAME, "h3").text
        assert [s.find_element(By.CSS_SELECTOR, ".error-line").text for s in sections] == [
            "ValueError: bad1 address", "ValueError: bad0 address"]
        if observability:
            summary = browser.find_element(By.CSS_SELECTOR, "#explain li").text
            assert "ValueError: bad1 address" in summary and "Traceback" not in summary, summary
        browser.get(base + "/dead?queue=once")
        assert browser.find_element(By.CSS_SELECTOR, f'tr[data-job="{twice}"] td.error').text == \
            "ValueError: bad1 address"

        # Health: one summary line, problems first.
        if observability:
            browser.get(base + "/health")
            summary = " ".join(wait.until(ec.presence_of_element_located((By.ID, "health-summary"))).text.split())
            assert re.fullmatch(r"(\d+ (critical|warning|info|ok) ?)+(· every check is ok)?", summary), summary
            severities = [r.get_attribute("data-severity")
                          for r in browser.find_elements(By.CSS_SELECTOR, "tr[data-check]")]
            order = ["critical", "warning", "info", "ok"]
            assert severities == sorted(severities, key=order.index), severities
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
