"""The independent books: what ran and what finished, kept outside pgq's own bookkeeping.

* ``rel.execution``: written by the job body itself (ledger_worker.py), in its
  own transaction on its own connection: a ``start`` row when the body begins
  and a ``done`` row when its work is finished. A ``done`` row is the job's
  effect; two of them for one job are a duplicate execution.
* ``rel.terminal``: a row trigger on ``q_data.job`` deletes. A job leaves the hot
  table exactly when it reaches a terminal state (completed, dead or
  cancelled), so two rows for one id are a duplicate terminal write (q_data.job
  has no primary key, so nothing else would stop a second one).

``audit`` compares both with the ids the producer saw committed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import psycopg

INSTALL = """
create schema if not exists rel;
create table if not exists rel.execution (
  job_id   bigint      not null,
  attempt  integer     not null,
  pid      integer     not null,
  phase    text        not null check (phase in ('start', 'done')),
  at       timestamptz not null default clock_timestamp(),
  -- One id per run of the body (ledger_worker.py): a write retried after its commit's answer was
  -- lost (the server crashed as it committed) finds its row and adds none, so a duplicate is a
  -- second run, never an echo of one write.
  run      uuid
);
create index if not exists execution_job_idx on rel.execution (job_id);
create unique index if not exists execution_run_idx on rel.execution (run, phase);
create table if not exists rel.terminal (
  job_id   bigint      not null,
  attempt  integer     not null,
  token    uuid,
  at       timestamptz not null default clock_timestamp()
);
-- SECURITY DEFINER: the trigger fires inside pgq's functions, as their
-- owner pgq_owner, which has no rights outside schema q.
create or replace function rel.tg_job__finished() returns trigger
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
begin
  insert into rel.terminal (job_id, attempt, token) values (old.id, old.attempt, old.token);
  return null;
end
$$;
drop trigger if exists zz_rel_terminal on q_data.job;
create trigger zz_rel_terminal after delete on q_data.job
  for each row execute function rel.tg_job__finished();
grant usage on schema rel to public;
grant insert, select on rel.execution to public;
"""


def install(conn: psycopg.Connection[Any]) -> None:
    """Create the books in this database (superuser: the trigger goes on q_data.job)."""
    conn.execute(INSTALL)


@dataclass
class Audit:
    """What the books say about a set of enqueued jobs."""

    enqueued: int
    executed: int  # jobs with at least one finished execution (a done row)
    completed: int  # jobs that left q_data.job and are not in the history as dead/cancelled
    dead: int
    cancelled: int
    unfinished: int  # still waiting, scheduled or running
    lost: int  # enqueued, committed, and gone without any terminal record
    duplicate_executions: int  # done rows beyond the first, summed over jobs
    duplicate_terminal_writes: int  # terminal records beyond the first, summed over jobs
    completed_without_execution: int  # completed but the body never finished: a lost effect
    unknown_terminal: int  # terminal records for ids the producer never saw committed
    duplicated_jobs: dict[int, list[int]] = field(default_factory=dict)  # job id -> pids of its done rows

    def figures(self) -> dict[str, int]:
        out = asdict(self)
        out.pop("duplicated_jobs")
        return out

    def assert_exactly_once(self) -> None:
        """Everything finished, once: 0 lost, 0 duplicate executions, 0 duplicate terminal writes."""
        assert self.lost == 0, f"{self.lost} jobs lost"
        assert self.unfinished == 0, f"{self.unfinished} jobs never finished"
        assert self.duplicate_executions == 0, f"{self.duplicate_executions} duplicate executions"
        assert self.duplicate_terminal_writes == 0, f"{self.duplicate_terminal_writes} duplicate terminal writes"
        assert self.completed_without_execution == 0, f"{self.completed_without_execution} completed, never run"
        assert self.completed == self.enqueued == self.executed, self.figures()


def audit(conn: psycopg.Connection[Any], enqueued: Iterable[int]) -> Audit:
    ids = sorted(set(enqueued))
    conn.execute("create temp table if not exists audit_ids (id bigint primary key)")
    conn.execute("truncate audit_ids")
    with conn.cursor().copy("copy audit_ids (id) from stdin") as copy:
        for job_id in ids:
            copy.write_row((job_id,))
    row = conn.execute(
        """
        with done as (
          select job_id, count(*) as runs, array_agg(pid order by at) as pids
            from rel.execution where phase = 'done' group by job_id
        ), term as (
          select job_id, count(*) as writes from rel.terminal group by job_id
        ), hist as (
          select id, state from q_data.job_history
        ), live as (
          select id from q_data.job
        )
        select
          (select count(*) from audit_ids),
          (select count(*) from audit_ids a join done d on d.job_id = a.id),
          (select count(*) from audit_ids a join term t on t.job_id = a.id
            where not exists (select from hist h where h.id = a.id and h.state <> 'completed')),
          (select count(*) from audit_ids a join hist h on h.id = a.id and h.state = 'dead'),
          (select count(*) from audit_ids a join hist h on h.id = a.id and h.state = 'cancelled'),
          (select count(*) from audit_ids a where a.id in (select id from live)),
          (select count(*) from audit_ids a
            where not exists (select from term t where t.job_id = a.id)
              and a.id not in (select id from live)),
          (select coalesce(sum(d.runs - 1), 0) from audit_ids a join done d on d.job_id = a.id),
          (select coalesce(sum(t.writes - 1), 0) from term t),
          (select count(*) from audit_ids a join term t on t.job_id = a.id
            where not exists (select from done d where d.job_id = a.id)
              and not exists (select from hist h where h.id = a.id and h.state <> 'completed')),
          (select count(*) from term t where not exists (select from audit_ids a where a.id = t.job_id))
        """
    ).fetchone()
    duplicated = conn.execute(
        "select job_id, array_agg(pid order by at) from rel.execution"
        " where phase = 'done' group by job_id having count(*) > 1"
    ).fetchall()
    return Audit(*[int(v) for v in row], duplicated_jobs={r[0]: list(r[1]) for r in duplicated})


def explained_duplicates(result: Audit, killed_pids: Collection[int]) -> int:
    """Duplicate executions whose earlier runs all happened in a process that was then killed."""
    explained = 0
    for pids in result.duplicated_jobs.values():
        if all(p in killed_pids for p in pids[:-1]):
            explained += len(pids) - 1
    return explained
