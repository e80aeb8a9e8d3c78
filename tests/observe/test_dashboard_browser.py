"""The dashboard in a real browser (Debian's chromium + chromedriver, headless, driven by selenium) against a
live database with jobs in every state: clicks change the database, filters and paging show what it holds.

PGQ_UPDATE_SCREENSHOTS=1 saves the screenshots into docs/screenshots/ (the README shows them); otherwise
they go to the test's temporary folder (they change with every run: ages, ids).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import psycopg
import pytest
from dashboard_support import SCREENSHOTS, chromium, dashboard, installed, jobs_in_every_state, state_of
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait


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


def flash(browser: Any) -> str:
    return str(WebDriverWait(browser, 10).until(ec.presence_of_element_located((By.ID, "flash"))).text)


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
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        assert cells[:6] == ["emails", "active", "5", "1", "1", "4"], cells
        if observability:  # throughput: the 2 completed jobs of this minute, as a sparkline (q_data.throughput)
            assert row.find_elements(By.CSS_SELECTOR, "svg.spark") and cells[7].endswith("2"), cells
        browser.save_screenshot(str(out / "dashboard-queues.png"))

        # Pause a queue: the database says paused, the page offers Resume.
        row.find_element(By.CSS_SELECTOR, "button.pause").click()
        assert flash(browser) == "queue emails paused"
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
        assert flash(browser) == f"job {first} is waiting again"
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
        assert flash(browser) == f"job {victim} cancelled"
        assert state_of(db_url, victim) == "cancelled"

        # Bulk: every dead job of the queue back at once.
        browser.get(base + "/dead?queue=emails")
        browser.find_element(By.CSS_SELECTOR, ".bulk button.retry").click()
        wait.until(ec.alert_is_present()).accept()
        assert flash(browser) == "3 dead job(s) of emails waiting again"
        assert all(state_of(db_url, j) == "waiting" for j in [*made.dead_mailbox, made.dead_timeout])

        # Resume the queue.
        browser.get(base + "/")
        browser.find_element(By.CSS_SELECTOR, 'tr[data-queue="emails"] button.resume').click()
        assert flash(browser) == "queue emails resumed"
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

        # Health (q.health): every check of a fresh install; pages whose SQL is not installed say so.
        browser.get(base + "/health")
        if observability:
            checks = {r.get_attribute("data-check")
                      for r in browser.find_elements(By.CSS_SELECTOR, "#health tbody tr")}
            assert {"server_settings", "table_settings", "vacuum", "xmin_horizon"} <= checks, checks
            browser.save_screenshot(str(out / "dashboard-health.png"))
        else:
            assert browser.find_elements(By.ID, "placeholder")
        for path in ("/schedules",):
            browser.get(base + path)
            assert (browser.find_elements(By.ID, "placeholder") or browser.find_elements(By.TAG_NAME, "table")
                    or browser.find_elements(By.CSS_SELECTOR, "p.empty")), path  # (schedules: none defined)
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
