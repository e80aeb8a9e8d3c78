-- Flow control (issue 11): global concurrency per queue, concurrency per key,
-- ordered keys and rate limits, enforced inside q.claim at READ COMMITTED.
--
-- The rule every part follows: no row that every claim must update. A limit
-- is a set of SLOT ROWS, one per unit of the limit; a claimer locks free ones
-- with FOR NO KEY UPDATE SKIP LOCKED, so claimers never wait on each other
-- and never serialize on one counter row (solid_queue#97/#630: a semaphore
-- row updated per claim drove Postgres to 100% CPU; DBOS, seed 002: global
-- flow control at REPEATABLE READ died of serialization failures past ~1,000
-- jobs/s). A job that holds a slot records its number, and triggers on q_data.job
-- give it back in the same transaction on every path that ends the hold
-- (complete, fail, release, cancel, reap), so no path can forget it.
--
-- Added with ALTER, not in 030_tables.sql, so that install.sql and the
-- Alembic revision build the same column order.

alter table q_data.queue
  add column concurrency      integer,
  add column key_concurrency  integer,
  add column ordered          boolean not null default false,
  add column rate             integer,
  add column per              interval,
  add column flow_waiting     boolean not null default false;
-- (Their rules, concurrency_is_in_range ... rate_and_per_go_together, are part
-- of q_data.queue's one CHECK constraint since 0008: sql/schema/080_queue_names.sql.)

comment on column q_data.queue.concurrency is
  'At most this many jobs of the queue run at once, across all workers (NULL = unlimited).';
comment on column q_data.queue.key_concurrency is
  'At most this many jobs per concurrency_key run (or wait to run) at once; jobs without a key are not limited (NULL = unlimited).';
comment on column q_data.queue.ordered is
  'Jobs of one concurrency_key run strictly one after another, by priority then enqueue order (key_concurrency is 1).';
comment on column q_data.queue.rate is
  'At most rate jobs of the queue start in any interval of length per (a sliding window; NULL = unlimited).';
comment on column q_data.queue.per is
  'The window of the rate limit.';
comment on column q_data.queue.flow_waiting is
  'A listening claimer found the queue''s slots taken (or a keyed queue short) and waits for NOTIFY: the next job to free a slot or admit a held job sends one and clears this. NOTIFY serializes committing transactions (a global lock held through the commit''s WAL flush), so it is sent only when someone waits for it.';

-- A keyed job is either ADMITTED (it holds one of its key's slots: state w,
-- s or r, key_slot set) or HELD (state h, outside the claim index). Claims
-- only ever see admitted jobs, so a key whose slots are taken costs a claim
-- nothing: one blocked key cannot make claims walk past its backlog, and
-- cannot starve the others (pg-boss PR #871).
alter table q_data.job
  add column concurrency_key  text,
  add column key_slot         smallint,
  add column queue_slot       smallint,
  drop constraint state_is_known,
  add constraint state_is_known check (state in ('w', 's', 'r', 'h')),
  add constraint held_job_has_no_key_slot check (state <> 'h' or key_slot is null),
  add constraint queue_slot_only_while_running check (queue_slot is null or state = 'r');

comment on column q_data.job.state is
  'w = waiting (due, claimable), s = scheduled (run_at in the future, or backing off after a failure), r = running (claimed), h = held (its concurrency key''s slots are taken).';
comment on column q_data.job.concurrency_key is
  'Jobs with the same key share the queue''s key_concurrency (and ordering) limit; NULL = not limited by key.';
comment on column q_data.job.key_slot is
  'The key slot (q_data.key_slot.n) this job holds from admission until it finishes; NULL while held or without a key limit.';
comment on column q_data.job.queue_slot is
  'The queue slot (q_data.queue_slot.n) this job holds while running on a queue with a concurrency limit.';

alter table q_data.job_history
  add column concurrency_key text;

-- Held jobs of a key in admission order (priority first, then enqueue order).
create index job_held_idx on q_data.job (queue_id, concurrency_key, priority desc, id)
  where state = 'h';

-- One row per unit of a queue's concurrency: n in 1..q.queue.concurrency.
-- Free when job_id is NULL. Rows above a lowered limit stay until freed and
-- are never taken again.
create table q_data.queue_slot (
  queue_id  integer  not null,
  n         smallint not null,
  job_id    bigint,
  constraint queue_slot_pkey primary key (queue_id, n)
) with (fillfactor = 50);

comment on table q_data.queue_slot is
  'Concurrency slots of queues with a concurrency limit: a running job holds one (job_id); claimers lock free ones with SKIP LOCKED.';

-- One row per unit of a key's concurrency, made on the key's first use.
create table q_data.key_slot (
  queue_id  integer  not null,
  key       text     not null,
  n         smallint not null,
  job_id    bigint,
  constraint key_slot_pkey primary key (queue_id, key, n)
) with (fillfactor = 50);

comment on table q_data.key_slot is
  'Concurrency slots per (queue, concurrency_key): an admitted job holds one from enqueue (or when it becomes due) until it finishes.';

-- One row per unit of a queue's rate: each start takes a slot whose last use
-- is at least `per` ago, so any window of length per holds at most `rate`
-- starts (an exact sliding window, without a counter row).
create table q_data.rate_slot (
  queue_id  integer     not null,
  n         integer     not null,
  used_at   timestamptz not null default '-infinity',
  constraint rate_slot_pkey primary key (queue_id, n)
) with (fillfactor = 50);

-- A claim reads the longest-unused slots first: the first entries of its
-- queue here, not a sort of every slot.
create index rate_slot_used_idx on q_data.rate_slot (queue_id, used_at);

comment on table q_data.rate_slot is
  'Rate-limit slots of queues with a rate: a claim may start a job only on a slot last used at least per ago.';

revoke all on q_data.queue_slot, q_data.key_slot, q_data.rate_slot from public;
