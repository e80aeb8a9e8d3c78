"""Workflows: job dependencies, flows and batches (issue 24).

A job can be enqueued after other jobs (q.enqueue_after, q.enqueue_flow): it
is pending (state p, outside the claim index) until its last parent ends, and
becomes waiting in that parent's transaction (a counter on the child row,
parents_left, makes that exact at READ COMMITTED). A parent that dies or is
cancelled cancels, runs or holds (state o) its children by each edge's policy.
Batches (q.create_batch, q.seal_batch, q.batch) enqueue one callback job when
their members have ended. One AFTER DELETE trigger on q_data.job carries every
job's end to its children and batch; the paths that do not complete (fail and
reap to dead, cancel, cancel_jobs, purge) say how the job ended through the
transaction-local setting pgq.job_end.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04T23:30:20+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


# --- begin dependencies ---
# sql/schema/095_deps.sql as this revision wrote it (a revision never reads today's sql/).
DEPS_SCHEMA = r"""
-- Dependencies and batches (issue 24): a job can wait for other jobs (its
-- parents) and a batch of jobs can have one callback job.
--
-- Added with ALTER, not in 030_tables.sql, so that install.sql and the
-- Alembic revision build the same column order.
--
-- A job with unfinished parents is PENDING (state p): outside the claim index,
-- like a held job. A job whose parent died or was cancelled under the "hold"
-- policy is ON HOLD (state o) until an operator calls q.unblock or q.cancel.
-- Neither state is ever claimed, promoted or reaped.
alter table q_data.job
  add column parents_left  integer,
  add column has_children  boolean,
  add column batch_id      bigint,
  drop constraint state_is_known,
  add constraint state_is_known check (state in ('w', 's', 'r', 'h', 'p', 'o')),
  add constraint parents_left_is_not_negative check (parents_left >= 0),
  add constraint pending_job_has_parents check (state <> 'p' or parents_left > 0);

comment on column q_data.job.state is
  'w = waiting (due, claimable), s = scheduled (run_at in the future, or backing off after a '
  'failure), r = running (claimed), h = held (its concurrency key''s slots are taken), p = pending '
  '(waits for parents), o = on hold (a parent died or was cancelled and the edge''s policy is '
  'hold: q.unblock or q.cancel).';
comment on column q_data.job.parents_left is
  'Parents (q_data.job_dep) not finished yet; NULL for a job enqueued without parents. The job '
  'becomes waiting in the transaction that brings it to 0.';
comment on column q_data.job.has_children is
  'true when some job was enqueued after this one: its end is passed to them (trigger '
  '_120_deps_finish). NULL otherwise, so jobs without children pay one WHEN test.';
comment on column q_data.job.batch_id is
  'The batch (q_data.batch) this job belongs to; NULL otherwise.';

-- Pending and on-hold jobs by id: a finishing parent finds its children here
-- (waiting jobs have no id index, see q_data.job; these states are rare and
-- short-lived, and jobs that never wait for a parent never enter it).
create index job_pending_idx on q_data.job (id) where state in ('p', 'o');

-- Members of a batch, for the "is anyone left?" test at a member's end.
create index job_batch_idx on q_data.job (batch_id) where batch_id is not null;

-- The edges of the graph: child waits for parent. Kept after both ended so
-- that q.parents(child) answers for a running or finished child too (a
-- child's parents are where q.parent_results will read its inputs). (Not done
-- yet: no retention deletes them; q.reap should, with the child's history.)
create table q_data.job_dep (
  child_id    bigint   not null,
  parent_id   bigint   not null,
  -- What happens to the child when this parent dies or is cancelled:
  -- c = cancel the child (and, through its own edges, its descendants),
  -- r = run it anyway (the edge counts as satisfied), h = hold it (state o).
  on_failure  "char"   not null,
  -- NULL while the parent has not ended; c = completed, d = dead, x = cancelled.
  outcome     "char",
  constraint job_dep_pkey primary key (child_id, parent_id),
  constraint on_failure_is_known check (on_failure in ('c', 'r', 'h')),
  constraint outcome_is_known check (outcome in ('c', 'd', 'x'))
);

comment on table q_data.job_dep is
  'Dependencies: child_id runs after parent_id ended (completed, or by on_failure when it died or was cancelled).';

-- A finishing parent's edges: cost bounded by its own children.
create index job_dep_parent_idx on q_data.job_dep (parent_id) where outcome is null;

-- Batches: one callback job enqueued once every member has ended (or at the
-- first dead member, on_dead = f), never before the batch is sealed.
create table q_data.batch (
  id                bigint       generated always as identity primary key,
  callback_queue    text         not null,
  callback_payload  jsonb        not null,
  -- w = wait for all members; f = fire at the first dead member.
  on_dead           "char"       not null default 'w',
  created_at        timestamptz  not null default now(),
  sealed_at         timestamptz,
  fired_at          timestamptz,
  callback_id       bigint,
  constraint on_dead_is_known check (on_dead in ('w', 'f')),
  constraint fired_batch_is_sealed check (fired_at is null or sealed_at is not null)
);

comment on table q_data.batch is
  'Batches: members are jobs with batch_id; the callback job (callback_queue, callback_payload '
  'plus the counts) is enqueued exactly once after q.seal_batch, when no member is left (or at the '
  'first dead one with on_dead f).';

-- One row per ended member, inserted by the member's own transaction: the
-- counts passed to the callback, without a counter row every member updates.
create table q_data.batch_done (
  batch_id  bigint  not null,
  job_id    bigint  not null,
  outcome   "char"  not null,
  constraint batch_done_pkey primary key (batch_id, job_id),
  constraint outcome_is_known check (outcome in ('c', 'd', 'x'))
);

comment on table q_data.batch_done is
  'Ended batch members and how they ended (c completed, d dead, x cancelled).';

revoke all on q_data.job_dep, q_data.batch, q_data.batch_done from public;
"""

# Functions dropped on downgrade (they are new here), in an order without dependants first.
DEPS_FUNCTIONS = (
    "q.enqueue_after(text, jsonb, bigint[], text, timestamptz, integer, integer, text, bigint)",
    "q.enqueue_flow(jsonb)",
    "q.unblock(bigint)",
    "q.parents(bigint)",
    "q.job_graph(bigint, integer)",
    "q.create_batch(text, jsonb, text)",
    "q.seal_batch(bigint)",
    "q.batch(bigint)",
    "q.tg_job__deps_finish()",
    "q.deps_resolve(bigint[], \"char\")",
    "q.batch_member_ended(bigint, bigint, \"char\")",
    "q.batch_try_fire(q_data.batch)",
    "q.batch_join(bigint)",
    "q.deps_mark_parents(bigint[])",
    "q.deps_check_parents(bigint[])",
    "q.deps_explain(q_data.job)",
    "q.deps_policy(text)",
    "q.deps_bad_policy(text)",
)

DEPS_SCHEMA_DOWN = """
-- 0008 knows no pending or on-hold job: they go to the history as cancelled
-- (their parents' ends could no longer reach them).
insert into q_data.job_history
  (id, queue_id, state, payload, priority, attempt, crashes, max_attempts,
   run_at, finished_at, dedup_key, errors, token, concurrency_key)
select j.id, j.queue_id, 'cancelled', j.payload, j.priority, j.attempt, j.crashes, j.max_attempts,
       j.run_at, clock_timestamp(), j.dedup_key, j.errors, null, j.concurrency_key
  from q_data.job j where j.state in ('p', 'o');
delete from q_data.job j where j.state in ('p', 'o');
drop table q_data.job_dep, q_data.batch, q_data.batch_done;
drop index q_data.job_pending_idx;
drop index q_data.job_batch_idx;
alter table q_data.job
  drop constraint pending_job_has_parents,
  drop constraint parents_left_is_not_negative,
  drop constraint state_is_known,
  add constraint state_is_known check (state in ('w', 's', 'r', 'h')),
  drop column parents_left,
  drop column has_children,
  drop column batch_id;
comment on column q_data.job.state is
  'w = waiting (due, claimable), s = scheduled (run_at in the future, or backing off after a '
  'failure), r = running (claimed), h = held (its concurrency key''s slots are taken).';
"""
# --- end dependencies ---


def upgrade() -> None:
    # --- begin dependencies ---
    _execute(DEPS_SCHEMA)
    for rel in (
        "internal/deps_bad_policy.sql",
        "internal/deps_policy.sql",
        "internal/deps_check_parents.sql",
        "internal/deps_mark_parents.sql",
        "internal/batch_join.sql",
        "internal/batch_try_fire.sql",
        "internal/batch_member_ended.sql",
        "internal/deps_resolve.sql",
        "internal/deps_explain.sql",
        "triggers/deps.sql",
        "functions/cancel.sql",
        "functions/cancel_jobs.sql",
        "functions/explain.sql",
        "functions/fail.sql",
        "functions/jobs.sql",
        "functions/purge.sql",
        "functions/reap.sql",
        "functions/enqueue_after.sql",
        "functions/enqueue_flow.sql",
        "functions/unblock.sql",
        "functions/parents.sql",
        "functions/job_graph.sql",
        "functions/create_batch.sql",
        "functions/seal_batch.sql",
        "functions/batch.sql",
    ):
        run_frozen("0009", rel)
    # --- end dependencies ---
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    # --- begin dependencies ---
    _execute(
        "drop trigger _120_deps_finish on q_data.job;\n"
        "drop trigger _100_deps_admit_ready on q_data.job;\n"
        + "".join(f"drop function {f};\n" for f in DEPS_FUNCTIONS)
    )
    for rel in (
        "functions/cancel.sql",
        "functions/cancel_jobs.sql",
        "functions/explain.sql",
        "functions/fail.sql",
        "functions/jobs.sql",
        "functions/purge.sql",
        "functions/reap.sql",
    ):
        run_frozen("0008", rel)
    _execute(DEPS_SCHEMA_DOWN)
    # --- end dependencies ---
