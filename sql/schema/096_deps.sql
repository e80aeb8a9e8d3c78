-- Dependencies and batches (design.md#results-and-dependencies): a job can wait
-- for other jobs (its parents) and a batch of jobs can have one callback job.
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
  'w = waiting (due, claimable), s = scheduled (run_at in the future, or backing off after a failure), r = running (claimed), h = held (its concurrency key''s slots are taken), p = pending (waits for parents), o = on hold (a parent died or was cancelled and the edge''s policy is hold: q.unblock or q.cancel).';
comment on column q_data.job.parents_left is
  'Parents (q_data.job_dep) not finished yet; NULL for a job enqueued without parents. The job becomes waiting in the transaction that brings it to 0.';
comment on column q_data.job.has_children is
  'true when some job was enqueued after this one: its end is passed to them (q.job_ended). NULL otherwise, so jobs without children pay one test.';
comment on column q_data.job.batch_id is
  'The batch (q_data.batch) this job belongs to; NULL otherwise.';

-- Pending and on-hold jobs by id: a finishing parent finds its children here
-- (waiting jobs have no id index, see q_data.job; these states are rare and
-- short-lived, and jobs that never wait for a parent never enter it).
create index job_pending_idx on q_data.job (id) where state in ('p', 'o');

-- Pending and on-hold jobs by queue: q.stats counts them (at most exact_up_to
-- index entries per queue and state) and finds the queues that have them.
-- Added by revision 0010; only children of a graph are ever in it.
create index job_pending_queue_idx on q_data.job (queue_id, state) where state in ('p', 'o');

-- Members of a batch, for the "is anyone left?" test at a member's end.
create index job_batch_idx on q_data.job (batch_id) where batch_id is not null;

-- The edges of the graph: child waits for parent. Kept after both ended so
-- that q.parents(child) and q.job_graph answer for a running or finished
-- child too (a running child reads its inputs through them:
-- q.parent_results); q.reap deletes them once the child has ended longer ago
-- than its queue's retention (q_data.job_dep_ended, q.purge_deps).
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
  'Batches: members are jobs with batch_id; the callback job (callback_queue, callback_payload plus the counts) is enqueued exactly once after q.seal_batch, when no member is left (or at the first dead one with on_dead f).';

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

-- Children that ended, for the reaper: one row per child (whatever its number
-- of parents), written by the child's ending transaction (q.job_ended).
-- q.purge_deps deletes a child's edges and then this row once ended_at is
-- older than the queue's retention, a bounded batch per reap.
create table q_data.job_dep_ended (
  child_id  bigint       primary key,
  queue_id  integer      not null,
  ended_at  timestamptz  not null
);

comment on table q_data.job_dep_ended is
  'Jobs with parents that have ended: q.reap deletes their edges (q_data.job_dep) after the queue''s retention.';

-- q.purge_deps: per queue, oldest first (as job_result_finished_idx).
create index job_dep_ended_at_idx on q_data.job_dep_ended (queue_id, ended_at);

-- q.purge_deps: fired batches, oldest first; a batch and its q_data.batch_done
-- rows go after the callback queue's retention.
create index batch_fired_idx on q_data.batch (fired_at) where fired_at is not null;

revoke all on q_data.job_dep, q_data.job_dep_ended, q_data.batch, q_data.batch_done from public;
