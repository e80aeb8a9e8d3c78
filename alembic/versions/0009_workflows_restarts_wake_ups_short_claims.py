"""Workflows, restarts, wake-ups and short claims (revision 0009).

Six parts, each between its own "# --- begin/end PART ---" lines:

- results (issue 24): q.complete / q.complete_many take a result, kept in
  q_data.job_result for the queue's keep_results (capped by max_result_size);
  q.result / q.results / q.parent_results say what became of any job;
  q.await_results registers the caller for NOTIFY pgq_result; q.heartbeat /
  q.heartbeat_many store progress; q.cancel of a running job sends NOTIFY
  pgq_cancel_<session key> to its worker.
- dependencies (issue 24): q.enqueue_after and q.enqueue_flow make jobs that
  are pending (state p, outside the claim index) until their last parent ends,
  and become waiting in that parent's transaction (a counter on the child row,
  parents_left, makes that exact at READ COMMITTED); a parent that dies or is
  cancelled cancels, runs or holds (state o) its children by each edge's
  policy. Batches (q.create_batch, q.seal_batch, q.batch) enqueue one callback
  job when their members have ended. One AFTER DELETE trigger on q_data.job
  carries every job's end to its children and batch.
- adopt (issue 25): q.reap gives claims whose session ended with the server
  (a restart or failover, q_data.server_start) q.restart_grace() before it
  counts them crashed, and q.adopt lets a reconnected worker move its claims
  under its new key.
- wakeup (issue 22): the first producer that sees a queue's waiter rows takes
  them (SKIP LOCKED, in its own transaction) and sends the one NOTIFY; the
  others send none until a worker records a new wait (also q.notify_queues);
  q.stop_waiting ends a worker's waits on a clean stop.
- standby_reads (issue 25): q.stats, q.throughput and q.throughput_totals
  read the unrolled outcomes through q.pending_tally(), empty on a standby
  (q_data.tally is unlogged), so a dashboard or exporter can read a standby.
- claim_explained (issue 23): q.claim_explained returns a claim's rows with
  why it came back short and when to look again, in one statement; retry-in is
  never 0 or empty while a key rate has jobs put off (job_put_off_idx);
  q.busy_keys and running counts in q.limits.

Upgrade: every table, column, type and index change first, then the frozen
0009 copies (functions validate against the new tables), then owner.sql.
Downgrade: the previous copy of every changed file, then each part drops what
it added (newest part first).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05T00:40:00+00:00
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


# --- begin claim_explained ---
# A claim that explains itself in one statement (issue 23 item 7); the same
# text as sql/schema/085_claim_explained.sql.
CLAIM_EXPLAINED = """
create type q.explained_claim as (
  id           bigint,
  queue        text,
  payload      jsonb,
  attempt      integer,
  crashes      integer,
  priority     integer,
  token        uuid,
  lease_until  timestamptz,
  blocked      text,
  retry_in     interval
);
comment on type q.explained_claim is
  'A row of q.claim_explained: a claimed job (the q.claimed_job columns; all NULL on the one row of a '
  'claim that got nothing) with blocked (why the claim got fewer than n: concurrency, key_concurrency, '
  'rate, key_rate or paused; NULL when nothing but an empty queue stopped it) and retry_in (with rate or '
  'key_rate: how long until the limit lets the next job start, never zero; NULL otherwise).';
create index job_put_off_idx on q_data.job (queue_id, run_at) where state = 's' and rate_wait;
"""
CLAIM_EXPLAINED_DOWN = """
drop function q.busy_keys(text, integer);
drop function q.claim_explained(text, integer, interval, integer);
drop type q.explained_claim;
drop index q_data.job_put_off_idx;
"""
# --- end claim_explained ---


# --- begin results ---
# sql/schema/095_results.sql, as 0009 writes it.
RESULTS_TABLES = """
-- Job results, progress and awaiting them (issue 24, revision 0009).
--
-- A completed job leaves q_data.job (and q_data.job_history keeps it only with
-- keep_completed), so a result needs a home of its own, with its own
-- retention: results are read by whoever enqueued the job, usually soon, and
-- a queue that keeps no history may still want its results for a day.

-- Per-queue settings (q.configure checks them: 22023). Not in the one CHECK
-- constraint of q_data.queue (settings_are_valid, 080_queue_names.sql): every
-- rule there is rebuilt at each INSERT of a queue row, and only q.configure
-- changes these two from their defaults.
alter table q_data.queue
  add column keep_results     interval not null default '1 day',
  add column max_result_size  integer  not null default 1048576;

comment on column q_data.queue.keep_results is
  'How long q_data.job_result keeps a completed job''s result (or completion receipt); q.reap '
  'deletes older ones. Independent of keep_completed and retention.';
comment on column q_data.queue.max_result_size is
  'The largest result (bytes of jsonb, decompressed) q.complete accepts for this queue; 54000 '
  'beyond, and nothing is written.';

-- Progress reported by q.heartbeat. NULL (a bit in the null bitmap) until a
-- worker reports some; kept when the job goes back to waiting (q.fail, a
-- lost claim), so the next attempt can read where the last one got.
alter table q_data.job add column progress jsonb;
alter table q_data.job_history add column progress jsonb;

comment on column q_data.job.progress is
  'The latest progress q.heartbeat(progress => ...) reported; kept across retries. Read it with q.result.';
comment on column q_data.job_history.progress is
  'The job''s progress (q.heartbeat) when it finished.';

-- Completed jobs' results. A row is written by q.complete / q.complete_many
-- when a result is given, or when someone awaits the job (q.await_results),
-- so the plain complete without a result writes nothing more than before.
create table q_data.job_result (
  id           bigint      primary key,
  queue_id     integer     not null,
  result       jsonb,
  progress     jsonb,
  attempt      smallint    not null,
  finished_at  timestamptz not null
);

comment on table q_data.job_result is
  'Completed jobs'' results (NULL: completed without one, kept because someone awaited the job). '
  'q.reap deletes rows older than the queue''s keep_results.';

-- q.reap's purge: per queue, oldest first.
create index job_result_finished_idx on q_data.job_result (queue_id, finished_at);

-- Sessions awaiting jobs (q.await_results). The finishing transaction
-- (q.complete, q.complete_many, q.finish for dead and cancelled jobs) deletes
-- the rows of its jobs and sends NOTIFY pgq_result with the job id: no NOTIFY
-- (and its commit-time lock) when nobody waits. Rows of waits that ended
-- without an outcome go at their `until` (q.reap).
create table q_data.result_waiter (
  job_id  bigint      not null,
  pid     integer     not null,
  until   timestamptz not null,
  primary key (job_id, pid)
) with (
  -- A few rows, inserted and deleted per awaited job: keep dead ones out of
  -- the probe every complete makes.
  autovacuum_vacuum_threshold = 50,
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_cost_delay = 0
);

comment on table q_data.result_waiter is
  'Backends awaiting a job''s outcome (q.await_results): the transaction that completes, kills or '
  'cancels the job deletes its rows and sends NOTIFY pgq_result, payload the job id. q.reap '
  'deletes rows past until.';

revoke all on q_data.job_result, q_data.result_waiter from public;
"""
RESULTS_OLD_SIGNATURES = """
drop function q.complete(bigint, uuid);
drop function q.complete_many(bigint[], uuid[]);
drop function q.heartbeat(bigint, uuid, interval);
drop function q.heartbeat_many(bigint[], uuid[], interval);
drop function q.configure(text, interval, integer, integer, interval, interval, boolean, interval,
  integer, integer, boolean, integer, interval, text[], integer, interval, interval);
"""
RESULTS_DOWN = """
drop function q.await_results(bigint[], interval);
drop function q.result(bigint);
drop function q.results(bigint[]);
drop function q.keep_result(q_data.job, jsonb, timestamptz);
drop function q.purge_results(integer, timestamptz);
drop function q.wake_result_waiters(bigint[]);
drop function q.complete(bigint, uuid, jsonb);
drop function q.complete_many(bigint[], uuid[], jsonb[]);
drop function q.heartbeat(bigint, uuid, interval, jsonb);
drop function q.heartbeat_many(bigint[], uuid[], interval, jsonb[]);
drop function q.configure(text, interval, integer, integer, interval, interval, boolean, interval,
  integer, integer, boolean, integer, interval, text[], integer, interval, interval, interval, integer);
drop table q_data.result_waiter;
drop table q_data.job_result;
alter table q_data.job drop column progress;
alter table q_data.job_history drop column progress;
alter table q_data.queue drop column keep_results, drop column max_result_size;
"""
# --- end results ---


# --- begin dependencies ---
# sql/schema/096_deps.sql as this revision wrote it (a revision never reads today's sql/).
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

-- Children that ended, for the reaper: one row per child (whatever its number
-- of parents), written by the child's ending transaction (_120_deps_finish).
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
    "q.purge_deps(integer, timestamptz)",
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
drop table q_data.job_dep, q_data.job_dep_ended, q_data.batch, q_data.batch_done;
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


# --- begin adopt ---
# sql/schema/052_server_start.sql, as install.sql makes it.
SERVER_START = """
create table q_data.server_start (
  id                boolean     primary key default true,
  postmaster_start  timestamptz not null,
  began_at          timestamptz not null,
  constraint one_row check (id)
);

insert into q_data.server_start (postmaster_start, began_at)
values (pg_catalog.pg_postmaster_start_time(), pg_catalog.pg_postmaster_start_time());

comment on table q_data.server_start is
  'One row: the postmaster start time q.reap last saw and when this server began serving (restart: its start; '
  'promoted standby: when the reaper first noticed). Sessions registered before began_at ended with the server '
  'and get q.restart_grace() before their claims count as crashed.';
comment on column q_data.server_start.postmaster_start is
  'pg_postmaster_start_time() of the server q.reap last ran on.';
comment on column q_data.server_start.began_at is
  'When the server q.reap runs on began serving: its postmaster start after a restart, or the first reap '
  'after a promotion.';

revoke all on q_data.server_start from public;
"""
DROP_ADOPT = """
drop function q.adopt(bigint[], uuid[], integer);
drop function q.server_began();
drop function q.restart_grace();
drop table q_data.server_start;
"""
# --- end adopt ---

# --- begin wakeup ---
WAKEUP_DOWN = """
drop function q.stop_waiting(integer);
drop function q.notify_always(integer[]);
"""
# --- end wakeup ---

PARENT_RESULTS_DOWN = """
drop function q.parent_results(bigint);
"""

# --- begin standby_reads ---
# The reading functions answer on a standby (issue 25, --read-url): they read
# q_data.tally (unlogged: not even plannable during recovery) through
# q.pending_tally(), empty on a standby.
STANDBY_READS_DOWN = """
drop function q.pending_tally();
"""
# --- end standby_reads ---

# Every file 0009 froze, in the order the upgrade runs them: internal functions,
# public ones, triggers; q.parent_results last (a SQL function: its body is
# checked against q.results and q.parents when it is made).
UPGRADE_FILES = (
    "internal/batch_join.sql",
    "internal/batch_member_ended.sql",
    "internal/batch_try_fire.sql",
    "internal/deps_bad_policy.sql",
    "internal/deps_check_parents.sql",
    "internal/deps_explain.sql",
    "internal/deps_mark_parents.sql",
    "internal/deps_policy.sql",
    "internal/deps_resolve.sql",
    "internal/finish.sql",
    "internal/flow_claim.sql",
    "internal/flow_claim_keyed.sql",
    "internal/flow_configure.sql",
    "internal/flow_wake.sql",
    "internal/forget_ended_sessions.sql",
    "internal/forget_idle_queues.sql",
    "internal/gone_owners.sql",
    "internal/keep_result.sql",
    "internal/note_wait.sql",
    "internal/notify_always.sql",
    "internal/pending_tally.sql",
    "internal/notify_queues.sql",
    "internal/purge_deps.sql",
    "internal/purge_results.sql",
    "internal/restart_grace.sql",
    "internal/server_began.sql",
    "internal/wake_result_waiters.sql",
    "functions/adopt.sql",
    "functions/await_results.sql",
    "functions/batch.sql",
    "functions/busy_keys.sql",
    "functions/cancel.sql",
    "functions/cancel_jobs.sql",
    "functions/claim.sql",
    "functions/claim_explained.sql",
    "functions/complete.sql",
    "functions/complete_many.sql",
    "functions/configure.sql",
    "functions/create_batch.sql",
    "functions/enqueue.sql",
    "functions/enqueue_after.sql",
    "functions/enqueue_flow.sql",
    "functions/explain.sql",
    "functions/fail.sql",
    "functions/heartbeat.sql",
    "functions/heartbeat_many.sql",
    "functions/job_graph.sql",
    "functions/jobs.sql",
    "functions/limits.sql",
    "functions/parents.sql",
    "functions/purge.sql",
    "functions/reap.sql",
    "functions/result.sql",
    "functions/results.sql",
    "functions/resume.sql",
    "functions/seal_batch.sql",
    "functions/stats.sql",
    "functions/stop_waiting.sql",
    "functions/throughput.sql",
    "functions/throughput_totals.sql",
    "functions/unblock.sql",
    "triggers/deps.sql",
    "triggers/notify_enqueued.sql",
    "functions/parent_results.sql",
)

# The copy each changed file had before 0009 (files new in 0009 are dropped by their part).
DOWNGRADE_FILES = (
    ("0008", "internal/finish.sql"),
    ("0008", "internal/flow_claim.sql"),
    ("0008", "internal/flow_claim_keyed.sql"),
    ("0008", "internal/flow_configure.sql"),
    ("0008", "internal/flow_wake.sql"),
    ("0008", "internal/forget_ended_sessions.sql"),
    ("0008", "internal/forget_idle_queues.sql"),
    ("0008", "internal/gone_owners.sql"),
    ("0008", "internal/note_wait.sql"),
    ("0008", "internal/notify_queues.sql"),
    ("0008", "functions/cancel.sql"),
    ("0008", "functions/cancel_jobs.sql"),
    ("0008", "functions/claim.sql"),
    ("0008", "functions/complete.sql"),
    ("0008", "functions/complete_many.sql"),
    ("0008", "functions/configure.sql"),
    ("0008", "functions/enqueue.sql"),
    ("0008", "functions/explain.sql"),
    ("0008", "functions/fail.sql"),
    ("0008", "functions/heartbeat.sql"),
    ("0001", "functions/heartbeat_many.sql"),
    ("0008", "functions/jobs.sql"),
    ("0008", "functions/limits.sql"),
    ("0008", "functions/purge.sql"),
    ("0008", "functions/reap.sql"),
    ("0008", "functions/resume.sql"),
    ("0008", "functions/stats.sql"),
    ("0008", "functions/throughput.sql"),
    ("0008", "functions/throughput_totals.sql"),
    ("0008", "triggers/notify_enqueued.sql"),
)


def upgrade() -> None:
    # --- begin claim_explained ---
    _execute(CLAIM_EXPLAINED)
    # --- end claim_explained ---
    # --- begin results ---
    _execute(RESULTS_TABLES)
    _execute(RESULTS_OLD_SIGNATURES)  # new signatures: CREATE OR REPLACE would add overloads
    # --- end results ---
    # --- begin dependencies ---
    _execute(DEPS_SCHEMA)
    # --- end dependencies ---
    # --- begin adopt ---
    _execute(SERVER_START)
    # --- end adopt ---
    for rel in UPGRADE_FILES:
        run_frozen("0009", rel)
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    for rev, rel in DOWNGRADE_FILES:
        run_frozen(rev, rel)  # the old bodies no longer read what the parts below drop
    _execute(PARENT_RESULTS_DOWN)
    # --- begin standby_reads ---
    _execute(STANDBY_READS_DOWN)
    # --- end standby_reads ---
    # --- begin wakeup ---
    _execute(WAKEUP_DOWN)
    # --- end wakeup ---
    # --- begin adopt ---
    _execute(DROP_ADOPT)
    # --- end adopt ---
    # --- begin dependencies ---
    _execute(
        "drop trigger _120_deps_finish on q_data.job;\n"
        "drop trigger _100_deps_admit_ready on q_data.job;\n"
        + "".join(f"drop function {f};\n" for f in DEPS_FUNCTIONS)
    )
    _execute(DEPS_SCHEMA_DOWN)
    # --- end dependencies ---
    # --- begin results ---
    _execute(RESULTS_DOWN)  # the new functions, then the tables and columns they used
    # --- end results ---
    # --- begin claim_explained ---
    _execute(CLAIM_EXPLAINED_DOWN)
    # --- end claim_explained ---
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns what came back
