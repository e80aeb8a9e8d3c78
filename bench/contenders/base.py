"""What every contender adapter offers, and the thread runner the sync ones share.

An adapter is one small module with a class that can: set up a fresh
database (`setup`), load a backlog fast (`load`, never timed), enqueue one job
(`enqueue_one`), enqueue in bulk (`enqueue_bulk`), and drain/work jobs with a
number of workers and a claim batch (`work`), which covers "claim k" and
"complete". Handlers get the payload; a drain ends when the queue is empty.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

Handler = Callable[[dict[str, Any]], None]


def payload(i: int, t: float | None = None) -> dict[str, Any]:
    """The Node benchmark's job (design.md#the-node-benchmark): { userId, email, template }, about 70 bytes
    of JSON (plus t for latency runs)."""
    p: dict[str, Any] = {"userId": i, "email": f"user{i}@example.com", "template": "welcome-email"}
    if t is not None:
        p["t"] = t
    return p


@dataclass
class WorkResult:
    done: int
    seconds: float
    capped: bool


class Contender(Protocol):
    name: str

    def setup(self) -> None: ...

    def load(self, n: int) -> None: ...

    def enqueue_one(self, n: int) -> float: ...

    def enqueue_inflight(self, n: int, inflight: int) -> float: ...

    def enqueue_bulk(self, n: int, per_call: int) -> float: ...

    def work(self, workers: int, batch: int, expect: int, cap_s: float, sleep_s: float = 0.0) -> WorkResult: ...

    def close(self) -> None: ...


Loop = Callable[[threading.Event, list[int], int], None]


def run_threads(workers: int, make: Callable[[int], Loop], cap_s: float) -> WorkResult:
    """Start `workers` threads; each connects (make(i) returns its loop), then all start at once.

    A loop runs until its queue is empty, adding jobs done to counts[i]. The run
    ends when every thread has returned or at the cap (stop is set; jobs done so
    far count: the Node benchmark's "a capped run reports jobs processed / cap").
    """
    stop = threading.Event()
    counts = [0] * workers
    ready = threading.Barrier(workers + 1)
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            loop = make(i)
            ready.wait()
            loop(stop, counts, i)
        except BaseException as exc:  # surfaced after join
            errors.append(exc)
            ready.abort()

    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(workers)]
    for t in threads:
        t.start()
    try:
        ready.wait(timeout=60)
    except threading.BrokenBarrierError:
        pass
    t0 = time.perf_counter()
    deadline = t0 + cap_s
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.perf_counter()))
    capped = any(t.is_alive() for t in threads)
    stop.set()
    elapsed = time.perf_counter() - t0
    for t in threads:
        t.join(timeout=30)
    if errors:
        raise errors[0]
    return WorkResult(done=sum(counts), seconds=cap_s if capped else elapsed, capped=capped)


def run_inflight(n: int, inflight: int, connect: Callable[[], Any], send: Callable[[Any, int], None]) -> float:
    """n enqueues with `inflight` at once: a thread and connection each, n / inflight calls per thread; seconds."""
    per = n // inflight

    def make(i: int) -> Loop:
        conn = connect()

        def loop(stop: threading.Event, counts: list[int], i: int) -> None:
            with conn:
                for k in range(per):
                    send(conn, i * per + k)
                    counts[i] += 1

        return loop

    return run_threads(inflight, make, cap_s=600).seconds


def paced(n: int, per_second: float, send: Callable[[int, float], None]) -> None:
    """Call send(i, t) n times at per_second, t = time.time() just before the call (pickup latency)."""
    start = time.perf_counter()
    for i in range(n):
        delay = start + i / per_second - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        send(i, time.time())


def listen_loops(
    connect: Callable[[bool], Any],
    channel: str,
    claim_one: Callable[[Any], list[dict[str, Any]]],
    on_job: Callable[[dict[str, Any]], None],
    workers: int,
    until: Callable[[], bool],
    timeout_s: float,
) -> None:
    """Idle workers of a hand-written kind: one LISTEN connection wakes every waiting loop; 1 s poll fallback.

    connect(autocommit) opens a connection; claim_one(conn) takes at most one
    job inside the loop's transaction and returns its payloads, which go to
    on_job before the transaction ends (the Node benchmark's loop holds its claim so).
    """
    wake = threading.Condition()
    stop = threading.Event()

    def listener() -> None:
        with connect(True) as conn:
            conn.execute(f'LISTEN "{channel}"')
            while not stop.is_set():
                for _ in conn.notifies(timeout=0.2, stop_after=1):
                    with wake:
                        wake.notify_all()

    def loop() -> None:
        with connect(False) as conn:
            while not stop.is_set():
                with conn.transaction():
                    jobs = claim_one(conn)
                    for job in jobs:
                        on_job(job)
                if not jobs:
                    with wake:
                        wake.wait(1.0)

    threads = [threading.Thread(target=listener, daemon=True)]
    threads += [threading.Thread(target=loop, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout_s
    while not until() and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    with wake:
        wake.notify_all()
    for t in threads:
        t.join(10)
