"""OpenTelemetry spans around handlers (the SDK's in-memory exporter), trace context through the payload,
and no spans, no errors, when OpenTelemetry is absent."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from observe_support import one, wait_for
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from pgq_client import AsyncWorker, Worker, enqueue, tracing


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_tracer_provider(provider)
    yield exporter
    tracing.use_tracer_provider(None)
    provider.shutdown()


def finished(url: str, n: int) -> bool:
    return int(one(url, "select count(*) from q_data.job_history")) >= n


def run_until(worker: Any, url: str, n: int) -> None:
    worker.start()
    try:
        wait_for(lambda: finished(url, n), 15, f"{n} jobs to finish")
    finally:
        worker.stop()
        assert worker.join(15)


def test_each_handler_runs_in_a_consumer_span_with_the_messaging_attributes(
        db_url: str, spans: InMemorySpanExporter) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.configure('emails', keep_completed => true, max_attempts => 1)")
        ok = enqueue(conn, "emails", {"to": "ada"})
        bad = enqueue(conn, "emails", {"to": "bob", "boom": True})
    inner: dict[str, Any] = {}

    def handler(payload: dict[str, Any]) -> None:
        with tracing._tracer().start_as_current_span("send mail") as span:  # the handler's own span
            inner[payload["to"]] = span.get_span_context()
        if payload.get("boom"):
            raise ValueError("mailbox full")

    run_until(Worker(handler, "emails", database_url=db_url, concurrency=2), db_url, 2)
    by_id = {s.attributes["messaging.message.id"]: s for s in spans.get_finished_spans() if s.name == "process emails"}
    assert set(by_id) == {str(ok), str(bad)}
    good, failed = by_id[str(ok)], by_id[str(bad)]
    assert good.kind is SpanKind.CONSUMER
    assert dict(good.attributes) == {
        "messaging.system": "pgq", "messaging.operation.type": "process", "messaging.operation.name": "process",
        "messaging.destination.name": "emails", "messaging.message.id": str(ok), "pgq.job.attempt": 1,
    }
    assert good.status.status_code is StatusCode.UNSET
    assert failed.status.status_code is StatusCode.ERROR and failed.status.description == "ValueError: mailbox full"
    assert [e.name for e in failed.events] == ["exception"]
    assert failed.events[0].attributes["exception.type"] == "ValueError"
    # The handler's own spans are children of the job's span.
    assert inner["ada"].trace_id == good.context.trace_id
    child = next(s for s in spans.get_finished_spans() if s.name == "send mail" and s.context == inner["ada"])
    assert child.parent.span_id == good.context.span_id


def test_the_producers_trace_goes_along_in_the_payload_and_the_handler_never_sees_the_carrier(
        db_url: str, spans: InMemorySpanExporter) -> None:
    seen: list[Any] = []
    tracer = tracing._tracer()
    with tracer.start_as_current_span("signup") as producer, psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select q.configure('emails', keep_completed => true)")
        payload = tracing.inject({"to": "ada"})
        assert set(payload) == {"to", tracing.TRACE_KEY} and "traceparent" in payload[tracing.TRACE_KEY]
        enqueue(conn, "emails", payload)

    async def handler(payload: dict[str, Any]) -> None:  # the asyncio twin, same spans
        seen.append(payload)

    async def main() -> None:
        worker = AsyncWorker(handler, "emails", database_url=db_url)
        worker.start()
        try:
            while not finished(db_url, 1):
                await asyncio.sleep(0.05)
        finally:
            worker.stop()
            assert await worker.join(15)

    asyncio.run(main())
    assert seen == [{"to": "ada"}]
    (span,) = [s for s in spans.get_finished_spans() if s.name == "process emails"]
    assert span.context.trace_id == producer.get_span_context().trace_id
    assert span.parent.span_id == producer.get_span_context().span_id


def test_no_tracer_provider_no_span_and_inject_adds_nothing_outside_a_span() -> None:
    tracing.use_tracer_provider(None)  # the global provider: none set in this process (a proxy)
    assert tracing.begin("emails", 1, 1, None) is None
    assert tracing.inject({"to": "ada"}) == {"to": "ada"}
    with pytest.raises(TypeError, match="JSON object"):
        tracing.inject(["not", "an", "object"])  # type: ignore[arg-type]


def test_without_opentelemetry_installed_jobs_run_and_inject_is_a_copy(db_url: str) -> None:
    script = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "opentelemetry":
                    raise ImportError(f"blocked: {name}")
                return None
        sys.meta_path.insert(0, Block())
        import time, psycopg
        from pgq_client import Worker, enqueue, tracing
        url = sys.argv[1]
        assert not tracing.available()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("select q.configure('emails', keep_completed => true)")
            enqueue(conn, "emails", tracing.inject({"to": "ada"}))
        got = []
        worker = Worker(got.append, "emails", database_url=url).start()
        deadline = time.monotonic() + 15
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
        worker.stop(); worker.join(15)
        print("handled", got)
    """)
    done = subprocess.run([sys.executable, "-c", script, db_url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "handled [{'to': 'ada'}]" in done.stdout
    assert one(db_url, "select count(*) from q_data.job_history where state = 'completed'") == 1


def test_a_thread_of_the_worker_sees_no_span_of_another_job() -> None:
    # begin/end attach and detach in the caller's context only: nothing leaks between jobs.
    from opentelemetry import trace

    provider = TracerProvider()
    tracing.use_tracer_provider(provider)
    try:
        outside: list[Any] = []
        job = tracing.begin("q1", 7, 1, None)
        assert job is not None and trace.get_current_span() is job.span
        t = threading.Thread(target=lambda: outside.append(trace.get_current_span()))
        t.start()
        t.join()
        job.end()
        assert not outside[0].get_span_context().is_valid
        assert not trace.get_current_span().get_span_context().is_valid
    finally:
        tracing.use_tracer_provider(None)
