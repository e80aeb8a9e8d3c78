-- Flow control (design.md#flow-control-without-a-hot-row): global concurrency
-- per queue, concurrency per key, ordered keys and rate limits, enforced
-- inside q.claim at READ COMMITTED.
--
-- The rule every part follows: no row that every claim must update. A limit
-- is a set of SLOT ROWS, one per unit of the limit; a claimer locks free ones
-- with FOR NO KEY UPDATE SKIP LOCKED, so claimers never wait on each other
-- and never serialize on one counter row (solid_queue#97/#630: a semaphore
-- row updated per claim drove Postgres to 100% CPU; the DBOS article: global
-- flow control at REPEATABLE READ died of serialization failures past ~1,000
-- jobs/s). A job that holds a slot records its number, and triggers on q_data.job
-- give it back in the same transaction on every path that ends the hold
-- (complete, fail, release, cancel, reap), so no path can forget it. The
-- triggers exist from installation (sql/triggers/flow.sql, revision 0008).
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

-- A key's slot rows, made one at a time as its jobs are admitted (revision
-- 0008, design.md#bounded-flow-control-storage; up to 0007 a key got all K of
-- them at first sight: one enqueue_many of 1,000 fresh keys at K = 1000 wrote
-- 1,000,000 rows). A row is made when an admission finds no free row of its key
-- and fewer than K rows, passed from a finishing job to the key's next held
-- job, freed when nobody is held, and deleted by the reaper's sweep
-- (q.flow_sweep) once free. The bound:
--
--   rows per key <= the key's admitted jobs (waiting or running, K at most)
--                   + rows freed since the last sweep (about a second)
--
-- so an idle key has no row, and the sweep reads only free rows (through
-- key_slot_free_idx) and keys listed in q_data.key_recheck: its cost does not
-- grow with the number of keys ever seen, idle or busy.
--
-- A row is made in the producer's transaction, but never so that another
-- producer waits for it: two first enqueues of a key race for the same unique
-- (queue_id, key, n), and the loser would wait for the winner's commit (0007:
-- for as long as the winner's transaction stayed open). q.flow_add_key_slot
-- gives up after 10 ms and the job is held instead (listed for the sweep, which
-- admits it once that transaction ended, if the key still has room).
create table q_data.key_slot (
  queue_id  integer  not null,
  key       text     not null,
  n         smallint not null,
  job_id    bigint,
  constraint key_slot_pkey primary key (queue_id, key, n)
) with (fillfactor = 50);

comment on table q_data.key_slot is
  'Concurrency slots per (queue, concurrency_key), made as jobs are admitted (at most key_concurrency per key): an admitted job holds one from enqueue (or when it becomes due) until it finishes; the reaper deletes free ones.';

-- The sweep's candidates: free rows only (deleted within a sweep or two), so
-- it never reads the busy rows of running keys nor skips rows it must keep.
-- (The predicate makes a take or a free a non-HOT update: one more index
-- entry per admission and per finish of a keyed job.)
create index key_slot_free_idx on q_data.key_slot (queue_id) where job_id is null;

-- Keys whose held jobs may have no slot coming: an admission that gave up on a
-- row another open transaction was making, or was held while the key's slots
-- were in flux (a slot freed, or deleted by the sweep, while its enqueue had
-- not committed yet: nobody saw the held job to pass a slot to). One row per
-- (key, transaction) at most, inserted with the held job, so it becomes
-- visible with it; no unique key, so no insert ever waits on another. The
-- reaper's sweep reads them oldest first and admits the key's held jobs while
-- the key has room.
create table q_data.key_recheck (
  id        bigint   generated always as identity,
  queue_id  integer  not null,
  key       text     not null,
  xact      xid8     not null default pg_catalog.pg_current_xact_id(),
  constraint key_recheck_pkey primary key (id)
);

create index key_recheck_key_idx on q_data.key_recheck (queue_id, key);

comment on table q_data.key_recheck is
  'Keys whose held jobs the reaper''s sweep must look at (an admission held a job without a slot it could wait for); xact is the inserting transaction, so one transaction lists a key once.';

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

revoke all on q_data.queue_slot, q_data.key_slot, q_data.key_recheck, q_data.rate_slot from public;
