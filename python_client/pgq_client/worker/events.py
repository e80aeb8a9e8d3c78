"""Structured log events of the worker runtime.

Every record the worker logs carries a stable event name (``record.event``)
and its fields (``record.fields``), so logs can be searched and alerted on by
name. The message text is ``event key=value ...`` for plain log handlers;
:class:`JsonFormatter` writes one JSON object per line instead.

Event names (stable): worker_started, worker_stopping, worker_stopped,
job_claimed, job_completed, job_failed, job_dead, job_lost, job_cancelled,
job_released, jobs_reaped, listener_connected, db_unavailable,
db_reconnected, db_error. job_completed, job_failed and job_dead carry
``duration_ms`` (the handler's run time) and failures an ``error`` summary
(exception type and the first line of its message).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timezone
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
JOBS_ADOPTED = "jobs_adopted"
LISTENER_CONNECTED = "listener_connected"
DB_UNAVAILABLE = "db_unavailable"
DB_RECONNECTED = "db_reconnected"
DB_ERROR = "db_error"


class ObservedLogger(logging.Logger):
    """A worker's logger that also counts its events (metrics on): every event, whatever the log level.

    Records go to ``base``'s handlers under ``base``'s name, as if logged there.
    """

    def __init__(self, base: logging.Logger, observe: Callable[[str], None]) -> None:
        super().__init__(base.name)
        self.parent = base
        self.propagate = True
        self.observe = observe

    def isEnabledFor(self, level: int) -> bool:  # noqa: N802 - logging's name
        assert self.parent is not None
        return self.parent.isEnabledFor(level)


def emit(logger: logging.Logger, level: int, event: str, **fields: Any) -> None:
    """Log one event; costs a level check only when the level is off (job events are DEBUG)."""
    if type(logger) is ObservedLogger:
        logger.observe(event)
    if not logger.isEnabledFor(level):
        return
    text = " ".join(f"{k}={_text(v)}" for k, v in fields.items())
    logger.log(level, f"{event} {text}" if text else event, extra={"event": event, "fields": fields})


def _text(value: Any) -> str:
    s = str(value)
    return json.dumps(s) if (not s or any(c.isspace() or c in '"=' for c in s)) else s


def timestamp(record: logging.LogRecord) -> str:
    """ISO 8601 with milliseconds and the zone: 2026-12-01T09:51:56.123+00:00."""
    return datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, event and the event's fields.

    Records of other loggers (psycopg, psycopg.pool, your application) have no
    event name: their message goes in ``message`` and ``event`` is "log".
    """

    def format(self, record: logging.LogRecord) -> str:
        event = getattr(record, "event", None)
        out: dict[str, Any] = {
            "time": timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": event or "log",
        }
        if event is None:
            out["message"] = record.getMessage()
        out.update(getattr(record, "fields", {}))
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


class TextFormatter(logging.Formatter):
    """``<ISO time> <LEVEL> <logger>: <message>`` for people reading a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{timestamp(record)} {record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def configure(level: int | str = logging.INFO, *, json_lines: bool = False) -> None:
    """Send every log record to stderr, pgq's and everyone else's (the CLI's set-up).

    The handler goes on the root logger, so psycopg's and psycopg.pool's
    records come out in the same format (one JSON object per line with
    json_lines). pgq's own loggers log at ``level``; the others at WARNING
    or above, so a debug run shows pgq's job events without psycopg's chatter.
    """
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if json_lines else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logger = logging.getLogger(LOGGER_NAME)
    logger.handlers[:] = []
    logger.setLevel(level)
    logger.propagate = True
