-- A zero or negative lease is rejected (22023), a NULL id or token too
-- (22004); the claim stays as it was.
begin;
select plan(5);
\ir ../_helpers.psql

select q.enqueue('beat', '{}') as job_id \gset
select token as job_token from q.claim('beat') \gset
select pg_temp.pgq_state() as before \gset

select throws_ok(format($$ select q.heartbeat(%s, %L, lease => '0') $$, :job_id, :'job_token'), '22023', null, 'a zero lease is rejected');
select throws_ok(format($$ select q.heartbeat(%s, %L, lease => '-1 minute') $$, :job_id, :'job_token'), '22023', null, 'a negative lease is rejected');
select throws_ok(format($$ select q.heartbeat(null, %L) $$, :'job_token'), '22004', null, 'a NULL id is rejected');
select throws_ok(format($$ select q.heartbeat(%s, null) $$, :job_id), '22004', null, 'a NULL token is rejected');
select is(pg_temp.pgq_state(), :'before', 'the rejected heartbeats changed nothing');

select * from finish();
rollback;
