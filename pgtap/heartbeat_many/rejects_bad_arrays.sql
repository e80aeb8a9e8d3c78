-- ids and tokens must be non-NULL (22004) and of one length (22023); the
-- lease positive (22023). A rejected call extends nothing.
begin;
select plan(5);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('beats', '[1, 2]') \g /dev/null
select array_agg(id order by id) as ids, array_agg(token order by id) as tokens from q.claim('beats', 2) \gset
select pg_temp.pgq_state() as before \gset

select throws_ok(format($$ select * from q.heartbeat_many(%L, %L) $$, :'ids', (:'tokens'::uuid[])[1:1]), '22023', null,
  'arrays of different lengths are rejected');
select throws_ok(format($$ select * from q.heartbeat_many(%L, null) $$, :'ids'), '22004', null, 'NULL tokens are rejected');
select throws_ok(format($$ select * from q.heartbeat_many(null, %L) $$, :'tokens'), '22004', null, 'NULL ids are rejected');
select throws_ok(format($$ select * from q.heartbeat_many(%L, %L, lease => '-1 second') $$, :'ids', :'tokens'), '22023', null,
  'a negative lease is rejected');
select is(pg_temp.pgq_state(), :'before', 'the rejected calls extended no lease');

select * from finish();
rollback;
