-- Cancelling a job that already finished (cancelled, dead, completed and
-- kept) returns false and changes nothing.
begin;
select plan(4);
\ir ../_helpers.psql

select q.configure('cancel', keep_completed => true) \g /dev/null
select q.enqueue('cancel', '{}') as cancelled_id \gset
select q.enqueue('cancel', '{}') as dead_id \gset
select q.enqueue('cancel', '{}') as completed_id \gset
select q.cancel(:cancelled_id) \g /dev/null
select q.fail(id, token, 'fatal', retryable => false) from q.claim('cancel') where id = :dead_id \g /dev/null
select q.complete(id, token) from q.claim('cancel') where id = :completed_id \g /dev/null
select pg_temp.pgq_state() as before \gset

select is(q.cancel(:cancelled_id), false, 'cancelling a cancelled job returns false');
select is(q.cancel(:dead_id), false, 'cancelling a dead job returns false');
select is(q.cancel(:completed_id), false, 'cancelling a completed (kept) job returns false');
select is(pg_temp.pgq_state(), :'before', 'nothing changed');

select * from finish();
rollback;
