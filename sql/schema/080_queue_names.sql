-- Queue names that cost nothing when idle (issue 21 item 5, revision 0008):
-- q.reap deletes idle queues (q.forget_idle_queues), looking at a bounded
-- number of q_data.queue rows per call; this is where the last call stopped.
alter table q_data.reaper_turn
  add column idle_queue_after integer not null default 0;

comment on column q_data.reaper_turn.idle_queue_after is
  'q.forget_idle_queues goes on from the queue after this id (0: from the start).';
