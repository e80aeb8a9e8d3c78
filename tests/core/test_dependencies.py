"""Dependencies under real concurrency (design.md#results-and-dependencies).

Siblings of one fan-in child completed at the same moment by separate processes
make the child waiting exactly once; a flow runs inline in run_jobs; the CLI
shows a job's graph.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pgq_client
import psycopg
from pgq_client.testing import run_jobs

WORKERS = 8
CHILDREN = 150


def complete_in_step(url: str, worker: int, total: int) -> int:
    """Claim this worker's parents (one per child), wait until all `total` workers have claimed
    theirs, then complete them one per transaction in child order: the siblings of each child
    are completed by 8 processes within the same instant."""
    with psycopg.connect(url, autocommit=True) as conn:
        jobs = conn.execute("select id, token, (payload ->> 'child')::int from q.claim(%s, %s)",
                            (f"fanin-{worker}", CHILDREN)).fetchall()
        conn.execute("insert into public.barrier values (%s)", (worker,))
        deadline = time.monotonic() + 60
        while conn.execute("select count(*) from public.barrier").fetchone()[0] < total:
            if time.monotonic() > deadline:
                raise TimeoutError("the other workers did not claim their parents")
            time.sleep(0.01)
        done = 0
        for job_id, token, _child in sorted(jobs, key=lambda j: j[2]):
            done += bool(conn.execute("select q.complete(%s, %s)", (job_id, token)).fetchone()[0])
        return done


def test_siblings_completed_at_once_make_each_fan_in_child_waiting_exactly_once(
    conn: psycopg.Connection[Any], db_url: str, run_processes: Callable[..., list[Any]]
) -> None:
    # An independent record of every pending -> waiting transition (a test-only trigger).
    conn.execute("create table public.ready (job_id bigint not null,"
                 " at timestamptz not null default clock_timestamp())")
    conn.execute("""
        create function public.note_ready() returns trigger language plpgsql security definer as $$
        begin insert into public.ready (job_id) values (new.id); return new; end $$""")
    conn.execute("""
        create trigger zz_note_ready after update of state on q_data.job for each row
        when (old.state = 'p' and new.state <> 'p') execute function public.note_ready()""")
    graph = []
    for c in range(CHILDREN):
        for w in range(WORKERS):
            graph.append({"ref": f"{c}/{w}", "queue": f"fanin-{w}", "payload": {"child": c}})
        graph.append({"ref": f"child-{c}", "queue": "fanin-child", "payload": {"child": c},
                      "after": [f"{c}/{w}" for w in range(WORKERS)]})
    ids = pgq_client.enqueue_flow(conn, graph)
    children = {ids[f"child-{c}"] for c in range(CHILDREN)}

    conn.execute("create table public.barrier (worker int)")
    done = run_processes(complete_in_step, [(db_url, w, WORKERS) for w in range(WORKERS)], timeout=180)
    assert sum(done) == CHILDREN * WORKERS

    ready = conn.execute("select job_id, count(*) from public.ready group by 1").fetchall()
    assert {r[0] for r in ready} == children, "every child became waiting"
    assert all(r[1] == 1 for r in ready), "each exactly once"
    rows = conn.execute("select state, parents_left, count(*) from q_data.job group by 1, 2").fetchall()
    assert rows == [("w", 0, CHILDREN)]
    assert len(pgq_client.claim(conn, "fanin-child", CHILDREN + 10)) == CHILDREN


def test_run_jobs_runs_a_flow_inline_in_dependency_order(conn: psycopg.Connection[Any]) -> None:
    conn.autocommit = True
    app = pgq_client.App()
    order: list[str] = []

    @app.task("wf-step")
    def step(payload: dict[str, Any]) -> None:
        order.append(payload["name"])

    graph = app.flow()
    # Enqueued in an order a queue would run them in without edges: the edges decide.
    last = graph.add(step, {"name": "report"}, ref="report", after=[])
    first = graph.add(step, {"name": "fetch"})
    middle = graph.add(step, {"name": "parse"}, after=[first])
    graph.jobs[0]["after"] = [middle]  # report after parse (refs may point forward in one call)
    ids = graph.enqueue(conn)
    assert set(ids) == {last, first, middle}
    runs = run_jobs(conn, app)
    assert order == ["fetch", "parse", "report"]
    assert len(runs) == 3


def test_task_enqueue_after_and_cli_flow(conn: psycopg.Connection[Any], db_url: str) -> None:
    from pgq_client.cli._commands import app as cli
    from typer.testing import CliRunner

    app = pgq_client.App()

    @app.task("wf-cli")
    def noop(payload: dict[str, Any]) -> None:
        return None

    parent = noop.enqueue(conn, {"n": 1})
    child = noop.enqueue(conn, {"n": 2}, after=[parent], on_parent_failure="hold")
    conn.commit()
    assert pgq_client.parents(conn, child) == [parent]
    assert [r.code for r in pgq_client.explain(conn, child)] == ["waiting_for_parents"]
    result = CliRunner().invoke(cli, ["--database-url", db_url, "flow", str(child)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "parent" in result.output and str(parent) in result.output and "pending" in result.output


def test_a_child_reads_its_parents_results_as_its_inputs(conn: psycopg.Connection[Any]) -> None:
    """Handlers' return values are results; the child reads them with parent_results (q.parent_results)."""
    conn.autocommit = True
    app = pgq_client.App()
    seen: list[Any] = []

    @app.task("wf-inputs")
    def part(payload: dict[str, Any]) -> int:
        return int(payload["n"]) * 10

    @app.task("wf-sum")
    def total(payload: dict[str, Any], job: pgq_client.JobContext) -> int:
        with job.connection() as c:
            inputs = pgq_client.parent_results(c, job.id)
        seen.extend((r.state, r.result) for r in inputs)
        return sum(r.result for r in inputs)

    graph = app.flow()
    a = graph.add(part, {"n": 1})
    b = graph.add(part, {"n": 2})
    child = graph.add(total, {}, after=[a, b])
    ids = graph.enqueue(conn)  # {ref: job id}
    run_jobs(conn, app)
    assert seen == [("completed", 10), ("completed", 20)]
    assert pgq_client.result(conn, ids[child]).result == 30
