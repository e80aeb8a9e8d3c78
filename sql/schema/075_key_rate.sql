-- Rate limits per concurrency key (revision 0007,
-- design.md#flow-control-without-a-hot-row): at most key_rate jobs of one key
-- start in any window of length key_per, the same exact sliding window as the
-- queue's rate (q_data.rate_slot), one set of slot rows per key.
--
-- A key whose window is full must not make claims walk past its jobs. A
-- claim that meets one puts it off: the job becomes scheduled (state s,
-- rate_wait set) for the moment its key's window frees the next start, so
-- it leaves the claim index and comes back through the usual promotion
-- (q.promote_due, called by the next claim that finds the queue short, and
-- by q.reap). Only ADMITTED jobs can meet a claim, and a key has at most
-- key_concurrency of those: that is why a per-key rate needs
-- key_concurrency. Without it, a key with 10,000 waiting jobs would see all
-- 10,000 put off and promoted again in every window; with it, at most
-- key_concurrency rows move per key and window, whatever the backlog.
--
-- Added with ALTER, after 065_flow.sql, so that install.sql and the Alembic
-- revision build the same column order.

alter table q_data.queue
  add column key_rate  integer,
  add column key_per   interval;
-- (Their rules, key_rate_is_in_range ... key_rate_needs_key_concurrency, are part
-- of q_data.queue's one CHECK constraint since 0008: sql/schema/080_queue_names.sql.)

comment on column q_data.queue.key_rate is
  'At most key_rate jobs of one concurrency_key start in any interval of length key_per (a sliding window per key; needs key_concurrency; NULL = unlimited).';
comment on column q_data.queue.key_per is
  'The window of the per-key rate limit.';

-- NULL for every job a key rate never put off: a nullable column costs an
-- unused job nothing (q_data.job's null bitmap has room up to 24 columns).
alter table q_data.job
  add column rate_wait boolean;

comment on column q_data.job.rate_wait is
  'True while the job is scheduled (state s) because its concurrency key''s rate window was full when a claim reached it: run_at is when the key may start its next job. It keeps its key slot; q.configure makes such jobs waiting again when the key rate is changed or removed.';

-- One row per start of a key inside its window, up to key_rate (revision
-- 0008; up to 0007 a key got key_rate rows at first sight). A claim that finds
-- no row of the key last used at least key_per ago makes the next one
-- (q.flow_add_key_rate_slot, never waiting on another claim's), then stamps it
-- as it stamps any; the reaper's sweep deletes rows whose stamp is older than
-- key_per (plus 10 s: a claim older than that makes no row, so a row made again
-- never comes closer than key_per to the start its number last recorded). A
-- missing row is a row never used. The bound: rows per key <= its starts in the
-- last key_per + 10 s, and never more than key_rate.
create table q_data.key_rate_slot (
  queue_id  integer     not null,
  key       text        not null,
  n         smallint    not null,
  used_at   timestamptz not null default '-infinity',
  constraint key_rate_slot_pkey primary key (queue_id, key, n)
) with (fillfactor = 50);

-- The sweep's candidates, oldest stamp first per queue: every one it reads
-- has left its window (a claim reads a key's few rows through the primary key).
create index key_rate_slot_used_idx on q_data.key_rate_slot (queue_id, used_at);

comment on table q_data.key_rate_slot is
  'Rate-limit slots per (queue, concurrency_key) of queues with a key_rate, one per start inside the window: a claim may start a job of the key only on a slot of the key last used at least key_per ago, or on a new one while the key has fewer than key_rate.';

revoke all on q_data.key_rate_slot from public;
