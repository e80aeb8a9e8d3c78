-- The longest lease a claim or heartbeat may ask for. Up to 0007 leases were
-- unbounded: q.claim('cap', 3, lease => '1000 years', owner => 0) and a
-- disconnect held a concurrency-3 queue full for good. A job that runs longer
-- than max_lease heartbeats (the worker does, every lease/3).
-- Its rules (positive, at least lease) are in q.check_queue_settings, the
-- table's one CHECK constraint (080_queue_names.sql).
alter table q_data.queue
  add column max_lease interval not null default '1 hour';

comment on column q_data.queue.max_lease is
  'The longest lease q.claim and q.heartbeat accept for this queue (22023 beyond); at least the queue''s default lease. Default 1 hour: a longer job heartbeats.';
