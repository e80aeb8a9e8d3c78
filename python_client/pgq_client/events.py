"""Structured log events of the worker runtime.

Every record the worker logs carries a stable event name (``record.event``)
and its fields (``record.fields``), so logs can be searched and alerted on by
name. The message text is ``event key=value ...`` for plain log handlers;
:class:`JsonFormatter` writes one JSON object per line instead.

Event names (stable): worker_started, worker_stopping, worker_stopped,
job_claimed, job_completed, job_failed, job_dead, job_lost, job_cancelled,
job_released, jobs_reaped, listener_connected, db_unavailable,
db_reconnected, db_error.
"""

from __future__ import annotations

import json
import logging
from typing import Any

LOGGER_NAME = "pgq"

WORKER_STARTED = "worker_started"
WORKER_STOPPING = "worker_stopping"
WORKER_STOPPED = "worker_stopped"
JOB_CLAIMED = "job_claimed"
JOB_COMPLETED = "job_completed"
JOB_FAILED = "job_failed"
JOB_DEAD = "job_dead"
JOB_LOST = "job_lost"
JOB_CANCELLED = "job_cancelled"
JOB_RELEASED = "job_released"
JOBS_REAPED = "jobs_reaped"
LISTENER_CONNECTED = "listener_connected"
DB_UNAVAILABLE = "db_unavailable"
DB_RECONNECTED = "db_reconnected"
DB_ERROR = "db_error"


def emit(logger: logging.Logger, level: int, event: str, **fields: Any) -> None:
    """Log one event; costs a level check only when the level is off (job events are DEBUG)."""
    if not logger.isEnabledFor(level):
        return
    text = " ".join(f"{k}={_text(v)}" for k, v in fields.items())
    logger.log(level, f"{event} {text}" if text else event, extra={"event": event, "fields": fields})


def _text(value: Any) -> str:
    s = str(value)
    return json.dumps(s) if (not s or any(c.isspace() or c in '"=' for c in s)) else s


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, event and the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": getattr(record, "event", None) or record.getMessage(),
        }
        out.update(getattr(record, "fields", {}))
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure(level: int | str = logging.INFO, *, json_lines: bool = False) -> None:
    """Send pgq's events to stderr (the CLI's set-up; applications usually configure logging themselves)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger(LOGGER_NAME)
    logger.handlers[:] = [handler]
    logger.setLevel(level)
    logger.propagate = False
