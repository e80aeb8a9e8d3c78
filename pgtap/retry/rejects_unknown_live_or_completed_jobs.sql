-- retry raises P0002 for an unknown id, 55000 for a job that is not dead or
-- cancelled (waiting, running, completed), 23505 when another live job has
-- taken its dedup key, 22004 for NULL. Nothing changes.
begin;
select plan(7);
\ir ../_helpers.psql

select q.configure('again', keep_completed => true) \g /dev/null
select q.enqueue('again', '{}') as waiting_id \gset
select q.enqueue('again', '{}', priority => 2) as running_id \gset
select q.enqueue('again', '{}', priority => 1) as completed_id \gset
select q.claim('again') \g /dev/null
select q.complete(id, token) from q.claim('again') \g /dev/null
select q.enqueue('again', '{}', dedup_key => 'k') as dedup_id \gset
select q.cancel(:dedup_id) \g /dev/null
select q.enqueue('again', '{}', dedup_key => 'k') as dedup_taker \gset
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.retry(999999999) $$, 'P0002', null, 'an unknown id raises P0002');
select throws_ok(format($$ select q.retry(%s) $$, :waiting_id), '55000', null, 'a waiting job raises 55000');
select throws_ok(format($$ select q.retry(%s) $$, :running_id), '55000', null, 'a running job raises 55000');
select throws_ok(format($$ select q.retry(%s) $$, :completed_id), '55000', null, 'a completed job raises 55000');
select throws_ok(format($$ select q.retry(%s) $$, :dedup_id), '23505', null, 'a job whose dedup key is taken again raises 23505');
select throws_ok($$ select q.retry(null) $$, '22004', null, 'a NULL id raises 22004');
select is(pg_temp.pgq_state(), :'before', 'the rejected retries changed nothing');

select * from finish();
rollback;
