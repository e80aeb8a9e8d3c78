-- A rolled-back first call (a worker polling with autocommit off and
-- rolling back when the queue is empty) leaves no row behind, and the next
-- call registers the session afresh: one row per session, nothing held in
-- the server's shared lock table.
begin;
select plan(3);

savepoint first_poll;
select q.session_key() as first_key \gset
rollback to savepoint first_poll;
select is((select count(*)::integer from q_data.session s where s.pid = pg_backend_pid()), 0,
  'the rolled-back registration left no row');

select q.session_key() as second_key \gset
select is((select count(*)::integer from q_data.session s where s.pid = pg_backend_pid()), 1,
  'the next call registers the session once');
select is(q.session_key(), :second_key, 'and keeps that key');

select * from finish();
rollback;
