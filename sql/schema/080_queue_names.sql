-- Queue names that cost nothing when idle (revision 0008,
-- design.md#queue-names-cost-nothing-when-idle): q.reap deletes idle queues
-- (q.forget_idle_queues), looking at a bounded number of q_data.queue rows per
-- call; this is where the last call stopped.
alter table q_data.reaper_turn
  add column idle_queue_after integer not null default 0;

comment on column q_data.reaper_turn.idle_queue_after is
  'q.forget_idle_queues goes on from the queue after this id (0: from the start).';

-- Enqueue into a new name (design.md#queue-names-cost-nothing-when-idle):
-- PostgreSQL rebuilds every CHECK constraint of a table from its stored text
-- at each INSERT statement, and q_data.queue had 17 (7 in 0001, flow control
-- 6, key rates 4): ~30 us of the ~40 us insert of a new queue's row, most of
-- why that enqueue cost ~3x 0002's. One constraint calling
-- q.check_queue_settings (created just before this file,
-- sql/internal/check_queue_settings.sql) checks the same rules and names the
-- one a row breaks.
alter table q_data.queue
  add constraint settings_are_valid check (q.check_queue_settings(
    name, lease, max_attempts, max_crashes, backoff_base, backoff_max, retention,
    concurrency, key_concurrency, ordered, rate, per, key_rate, key_per, max_lease));
