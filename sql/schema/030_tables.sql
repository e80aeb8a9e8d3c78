-- Per-queue settings. A row appears on the first enqueue (or pause/configure)
-- with the defaults below, so a queue needs no set-up.
create table q_data.queue (
  id              integer     generated always as identity primary key,
  name            text        not null,
  paused          boolean     not null default false,
  lease           interval    not null default '5 minutes',
  max_attempts    smallint    not null default 5,
  max_crashes     smallint    not null default 3,
  backoff_base    interval    not null default '1 second',
  backoff_max     interval    not null default '1 hour',
  keep_completed  boolean     not null default false,
  retention       interval    not null default '7 days',
  created_at      timestamptz not null default now(),
  constraint queue_name_key unique (name)
  -- The rules of a row (name_is_valid, lease_is_positive, ...) are one CHECK
  -- constraint since 0008: settings_are_valid, sql/schema/080_queue_names.sql.
);

comment on table q_data.queue is
  'Per-queue settings; one row per queue name, created with defaults on first use.';
comment on column q_data.queue.lease is
  'How long a claim lasts without a heartbeat; the backstop when the claiming session cannot be watched.';
comment on column q_data.queue.max_attempts is
  'Failed attempts (q.fail) before a job is dead; a job''s own max_attempts overrides it.';
comment on column q_data.queue.max_crashes is
  'Lost claims (worker died, lease ran out) before a job is dead: the crash budget.';
comment on column q_data.queue.backoff_base is
  'Retry delay after the first failure; it doubles per failure, with jitter, up to backoff_max.';
comment on column q_data.queue.keep_completed is
  'Whether completed jobs are copied to q_data.job_history (dead and cancelled ones always are).';
comment on column q_data.queue.retention is
  'How long q_data.job_history keeps finished jobs of this queue; q.reap deletes older ones.';

-- The hot table: waiting, scheduled and running jobs only. Finished jobs leave
-- it, so claims never walk past them (the claim-rate article: a plain index
-- over 1.8M done rows made claims 470x slower;
-- design.md#finished-jobs-leave-the-hot-table).
--
-- Layout notes, measured for bytes per waiting job:
-- * No primary-key index. Waiting jobs carry one index entry (the claim index),
--   running jobs are found through job_running_idx. This keeps a waiting job
--   under 180 bytes and makes enqueue and claim each write one index entry.
--   Identity values are unique by construction and only pgq functions write here.
-- * state is a one-byte "char"; columns are ordered widest-first so the
--   fixed part packs without padding; columns that are NULL while a job waits
--   (claim, dedup, errors) cost nothing but a bit in the null bitmap.
create table q_data.job (
  id            bigint      generated always as identity,
  run_at        timestamptz not null,
  queue_id      integer     not null,
  priority      smallint    not null default 0,
  attempt       smallint    not null default 0,
  state         "char"      not null default 'w',
  payload       jsonb       not null,
  crashes       smallint,
  max_attempts  smallint,
  lease_until   timestamptz,
  token         uuid,
  owner         integer,
  dedup_key     text,
  errors        jsonb,
  constraint state_is_known check (state in ('w', 's', 'r')),
  constraint running_job_has_claim check ((state = 'r') = (token is not null)),
  constraint max_attempts_is_positive check (max_attempts > 0)
) with (
  -- A queue table churns: every job is inserted, updated and deleted within
  -- seconds. Vacuum it at 2% dead rows instead of 20%, unthrottled (the
  -- claim-rate article: stock settings decayed 16,141 -> 5,770 claims/s within
  -- a minute; design.md#autovacuum-is-told-the-table-is-a-queue).
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0,
  autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.05
);

-- No primary key: logical replication of an UPDATE or DELETE still works.
alter table q_data.job replica identity full;

comment on table q_data.job is
  'Jobs that are waiting (w), scheduled for later (s) or running (r). Finished jobs move to q_data.job_history or are deleted.';
comment on column q_data.job.state is
  'w = waiting (due, claimable), s = scheduled (run_at in the future, or backing off after a failure), r = running (claimed).';
comment on column q_data.job.run_at is
  'When the job becomes due; waiting jobs are claimed by priority (high first), then run_at (oldest first).';
comment on column q_data.job.attempt is
  'How many times the job has been claimed, including claims lost to a crash.';
comment on column q_data.job.crashes is
  'Claims lost because the worker died or the lease ran out; NULL means none.';
comment on column q_data.job.token is
  'Random per-claim fencing token: only the holder of the current token can complete, fail or heartbeat the job.';
comment on column q_data.job.owner is
  'Session key (see q.session_key) whose advisory lock proves the claimer is alive; NULL = lease only.';
comment on column q_data.job.errors is
  'The newest 20 failed or lost attempts: [{attempt, at, error, crashed}], each error cut at 4,096 characters.';

-- Claim order, sorted already, only waiting jobs: a claim reads the first
-- entries of its queue and never sorts. Deduplication stays off so a posting
-- list of equal keys never makes claims recheck already-claimed heap rows.
-- Entries arrive at the end of their queue's range (run_at grows), so pages
-- can be filled completely: fillfactor 100 keeps a waiting job small.
create index job_claim_idx on q_data.job (queue_id, priority desc, run_at)
  with (deduplicate_items = off, fillfactor = 100)
  where state = 'w';

-- Running jobs by id: complete/fail/heartbeat, and the reaper's scan.
create index job_running_idx on q_data.job (id) where state = 'r';

-- Scheduled jobs by due time, for promotion to waiting.
create index job_scheduled_idx on q_data.job (queue_id, run_at) where state = 's';

-- Deduplication: at most one waiting/scheduled/running job per queue and key.
create unique index job_dedup_key_idx on q_data.job (queue_id, dedup_key)
  where dedup_key is not null;

-- Finished jobs: completed (when the queue keeps them), dead and cancelled.
create table q_data.job_history (
  id            bigint      primary key,
  queue_id      integer     not null,
  state         text        not null,
  payload       jsonb       not null,
  priority      smallint    not null,
  attempt       smallint    not null,
  crashes       smallint,
  max_attempts  smallint,
  run_at        timestamptz not null,
  finished_at   timestamptz not null,
  dedup_key     text,
  errors        jsonb,
  token         uuid,
  constraint state_is_final check (state in ('completed', 'dead', 'cancelled'))
);

comment on table q_data.job_history is
  'Finished jobs: completed (if the queue keeps them), dead (retries or crash budget spent) and cancelled. q.reap deletes rows older than the queue''s retention.';
comment on column q_data.job_history.errors is
  'The newest 20 failed or lost attempts: [{attempt, at, error, crashed}], each error cut at 4,096 characters.';

comment on column q_data.job_history.token is
  'For a job cancelled while running: the token of the claim it had, so only that claim''s q.heartbeat answers ''cancelled''.';

create index job_history_finished_idx on q_data.job_history (queue_id, finished_at);
create index job_history_dead_idx on q_data.job_history (queue_id) where state = 'dead';

revoke all on all tables in schema q_data from public;
revoke all on all sequences in schema q_data from public;
