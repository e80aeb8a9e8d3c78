"""OpenTelemetry for pgq: a span around each handler, and trace context carried in the payload.

    from pgq_client import enqueue
    from pgq_client.tracing import inject

    enqueue(conn, "emails", inject({"to": "ada@example.com"}))   # the producer's trace goes along

The worker runs each handler inside a span ``process <queue>`` (kind
CONSUMER) with the messaging semantic conventions' attributes:
``messaging.system`` = ``pgq``, ``messaging.operation.type`` /
``messaging.operation.name`` = ``process``, ``messaging.destination.name`` =
the queue, ``messaging.message.id`` = the job id, and ``pgq.job.attempt``.
A handler that raises records the exception and sets the span's status to
ERROR. When the payload carries a trace context (:func:`inject` at enqueue),
the span is a child of the producer's span, and the worker takes the carrier
out of the payload before the handler (or its payload model) sees it.

Everything here is optional: without ``opentelemetry-api`` installed (the
``otel`` extra) or with no tracer provider set (``opentelemetry.trace.
set_tracer_provider``, usually by the SDK's set-up), no span is made and each
job costs one check. Importing this module needs the standard library only.
"""

from __future__ import annotations

import time
from typing import Any

try:  # the `otel` extra
    from opentelemetry import context as otel_context
    from opentelemetry import propagate, trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError:  # pragma: no cover - exercised by the test that blocks the import
    trace = None  # type: ignore[assignment]

# Where :func:`inject` puts the trace context in a JSON-object payload (W3C
# ``traceparent`` and ``tracestate``, as OpenTelemetry's propagators write them).
TRACE_KEY = "_pgq_trace"
SYSTEM = "pgq"
TRACER_NAME = "pgq_client"

_provider: Any = None  # set by use_tracer_provider: pgq's spans go there instead of to the global provider
# Looking the global provider up and checking its class costs ~3 us (os.environ, an ABC isinstance):
# 10% of a core at 35k jobs/s. So the answer is kept for a second: a provider set while a worker
# runs (e.g. in a start-up hook) is used from the next second on.
RECHECK_EVERY = 1.0
_tracer_cache: tuple[float, Any] = (-1e18, None)  # (when looked up, tracer or None)


def available() -> bool:
    """Is opentelemetry-api importable?"""
    return trace is not None


def use_tracer_provider(provider: Any) -> None:
    """Send pgq's spans to this TracerProvider instead of the global one (None: the global one again)."""
    global _provider, _tracer_cache
    _provider = provider
    _tracer_cache = (-1e18, None)


def inject(payload: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``payload`` that carries the current trace context (unchanged copy when there is none).

    The payload must be a JSON object (a dict): the context goes under
    ``"_pgq_trace"``. Without opentelemetry-api, or outside any span, nothing is added.
    """
    if not isinstance(payload, dict):
        raise TypeError(f"inject() needs a JSON object (a dict) payload, got {type(payload).__name__}")
    out = dict(payload)
    if trace is None:
        return out
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    if carrier:
        out[TRACE_KEY] = carrier
    return out


def split(payload: Any) -> tuple[Any, dict[str, str] | None]:
    """(the payload without its trace carrier, the carrier or None); a payload without one is returned as is."""
    if type(payload) is dict and TRACE_KEY in payload:
        rest = dict(payload)
        carrier = rest.pop(TRACE_KEY)
        return rest, carrier if isinstance(carrier, dict) else None
    return payload, None


def extract(payload: Any) -> Any:
    """The OpenTelemetry Context a payload carries (from :func:`inject`), or None."""
    _, carrier = split(payload)
    if trace is None or carrier is None:
        return None
    return propagate.extract(carrier)


def _tracer() -> Any:
    """pgq's tracer, or None when no span should be made (no API, or no provider configured)."""
    global _tracer_cache
    if trace is None:
        return None
    now = time.monotonic()
    checked, tracer = _tracer_cache
    if now - checked < RECHECK_EVERY:
        return tracer
    provider = _provider if _provider is not None else trace.get_tracer_provider()
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        tracer = None  # nothing set up to record spans: skip the work of making non-recording ones
    else:
        tracer = provider.get_tracer(TRACER_NAME)
    _tracer_cache = (now, tracer)
    return tracer


class JobSpan:
    """A handler run's span, current (attached to the context) from :func:`begin` until :meth:`end`."""

    __slots__ = ("span", "_token")

    def __init__(self, span: Any, token: Any) -> None:
        self.span = span
        self._token = token

    def failed(self, exc: BaseException, summary: str) -> None:
        """The handler raised (or its payload was refused): record the exception, status ERROR."""
        try:
            self.span.record_exception(exc)
        except Exception:  # noqa: BLE001 - an exception whose __str__ raises: the status still says what it was
            pass
        self.span.set_status(Status(StatusCode.ERROR, summary))

    def end(self) -> None:
        otel_context.detach(self._token)
        self.span.end()


def begin(queue: str, job_id: int, attempt: int, carrier: dict[str, str] | None) -> JobSpan | None:
    """Start the span around one handler run and make it current; None when no span is made.

    A plain function pair (begin, :meth:`JobSpan.end`) rather than a context
    manager: with tracing off, a job costs one call that returns None.
    """
    tracer = _tracer()
    if tracer is None:
        return None
    parent = propagate.extract(carrier) if carrier else None
    attributes = {
        "messaging.system": SYSTEM,
        "messaging.operation.type": "process",
        "messaging.operation.name": "process",
        "messaging.destination.name": queue,
        "messaging.message.id": str(job_id),
        "pgq.job.attempt": attempt,
    }
    span = tracer.start_span(f"process {queue}", context=parent, kind=SpanKind.CONSUMER, attributes=attributes)
    return JobSpan(span, otel_context.attach(trace.set_span_in_context(span)))
