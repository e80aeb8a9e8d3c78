"""An App whose task declares a queue limit in code: `pgq worker limits_test_app:app`.

``render`` has 5 handler slots in this worker (the App's concurrency) but declares
FlowLimits(concurrency=2): at most 2 of its jobs run at once across all workers, written to
the database by the worker at start-up. Runs are logged as in settings_test_app.
"""

from __future__ import annotations

from typing import Any

from pgq_client import App, FlowLimits, JobContext
from settings_test_app import _run

app = App(concurrency=5, poll_interval=0.2)


@app.task(queue="render", limits=FlowLimits(concurrency=2))
def render(payload: dict[str, Any], job: JobContext) -> None:
    _run(payload, job)
