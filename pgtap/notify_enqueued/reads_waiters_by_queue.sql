-- The enqueue trigger reads q_data.waiter on every enqueue (it sends NOTIFY
-- only for queues a session waits for): the read is one probe of the primary
-- key, whose first column is the queue; a session's rows go when q.reap
-- deletes its q_data.session row. What it sends is for pytest
-- (tests/core/test_notify_on_demand.py): NOTIFY is delivered only at commit.
begin;
select plan(4);

select col_is_pk('q_data', 'waiter', array['queue', 'session_key'],
  'q_data.waiter is keyed by (queue, session_key): the trigger''s probe by queue uses it');
select fk_ok('q_data', 'waiter', 'session_key', 'q_data', 'session', 'key',
  'a wait belongs to a liveness key');
select is((select confdeltype::text from pg_catalog.pg_constraint
            where conrelid = 'q_data.waiter'::regclass and contype = 'f'),
  'c', 'deleting an ended session''s key (q.reap) deletes its waits');
select is_empty($$ select 1 from pg_catalog.pg_class c, pg_catalog.pg_namespace n
                   where n.oid = c.relnamespace and n.nspname = 'q_data' and c.relname = 'waiter'
                     and has_table_privilege('pgq_producer', c.oid, 'select') $$,
  'no role pgq grants reads it directly (the trigger runs inside q.enqueue, as pgq''s owner)');

select * from finish();
rollback;
