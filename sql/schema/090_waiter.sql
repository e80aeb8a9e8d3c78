-- Wake-ups on demand (design.md#wake-ups-on-demand). PostgreSQL holds one
-- cluster-wide lock through the whole commit of every transaction that sent a
-- NOTIFY, so when every enqueue notified, concurrent producers committed one at
-- a time. Now an enqueue notifies only while a session waits for its queue: a
-- row here, written by q.claim (sql/functions/claim.sql) when a listening claim
-- comes back empty, deleted by the next listening claim of that session that
-- finds jobs, and by q.reap (through q_data.session) once the session has
-- ended.
-- The first enqueue that finds a queue's rows takes them (deletes them, SKIP
-- LOCKED) and sends the one NOTIFY (revision 0009, sql/triggers/notify_enqueued.sql);
-- a worker that stops cleanly deletes its own (q.stop_waiting).
-- Keyed by queue name, not id: a worker may wait for a queue nobody has
-- enqueued into yet.
create table q_data.waiter (
  queue        text        not null,
  session_key  integer     not null references q_data.session (key) on delete cascade,
  since        timestamptz not null default clock_timestamp(),
  primary key (queue, session_key)
) with (
  -- A few rows, inserted and deleted on every idle transition of a worker:
  -- keep the dead ones out of the trigger's reads.
  autovacuum_vacuum_threshold = 50,
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_cost_delay = 0
);

comment on table q_data.waiter is
  'Sessions waiting for jobs of a queue: an enqueue into the queue sends NOTIFY pgq only while a row names it. '
  'Written by q.claim with pgq.listening = on and an owner key (a claim that comes back short, or empty with '
  'pgq.wait_when = empty, adds the row; any other claim deletes it); rows of ended sessions go with their '
  'q_data.session row (q.reap).';

revoke all on q_data.waiter from public;
