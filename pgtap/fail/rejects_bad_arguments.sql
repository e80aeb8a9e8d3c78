-- A negative retry_in is rejected (22023), a NULL id or token too (22004);
-- the job stays exactly as it was.
begin;
select plan(4);
\ir ../_helpers.psql

select q.enqueue('failing', '{}') as job_id \gset
select token as job_token from q.claim('failing') \gset
select pg_temp.pgq_state() as before \gset

select throws_ok(format($$ select q.fail(%s, %L, 'x', retry_in => '-1 second') $$, :job_id, :'job_token'), '22023', null,
  'a negative retry_in is rejected');
select throws_ok(format($$ select q.fail(null, %L, 'x') $$, :'job_token'), '22004', null, 'a NULL id is rejected');
select throws_ok(format($$ select q.fail(%s, null, 'x') $$, :job_id), '22004', null, 'a NULL token is rejected');
select is(pg_temp.pgq_state(), :'before', 'the rejected calls changed nothing');

select * from finish();
rollback;
