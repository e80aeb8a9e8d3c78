"""The words for a job's states are spelled in one Python module (records.py) and agree with the SQL that takes them:
JobState with q.jobs, the dashboard's job lists (JOB_LIST_STATES) with q.job_page."""

from __future__ import annotations

import re
from pathlib import Path

from pgq_client.records import JOB_LIST_STATES, JobState

FUNCTIONS = Path(__file__).resolve().parents[2] / "sql" / "functions"


def accepted_states(function: str) -> set[str]:
    """The states sql/functions/<function>.sql checks its state argument against (``<function>.state not in (...)``)."""
    body = (FUNCTIONS / f"{function}.sql").read_text()
    found = re.search(rf"{function}\.state not in \(([^)]*)\)", body)
    assert found, f"no state check in {function}.sql"
    return set(re.findall(r"'([a-z_]+)'", found.group(1)))


def test_job_state_has_every_state_q_jobs_takes() -> None:
    assert {s.value for s in JobState} == accepted_states("jobs")


def test_the_dashboards_job_lists_are_the_states_q_job_page_takes() -> None:
    assert set(JOB_LIST_STATES) == accepted_states("job_page") and len(JOB_LIST_STATES) == len(set(JOB_LIST_STATES))
    # How the two differ (records.py says why): held is a list of its own; pending and on_hold only q.jobs lists.
    assert set(JOB_LIST_STATES) ^ {s.value for s in JobState} == {"held", "pending", "on_hold"}
