-- ids, tokens and errors must be non-NULL arrays (22004) of one length
-- (22023); retry_in must not be negative (22023). A rejected call fails
-- nothing, not even the pairs that were fine.
begin;
select plan(6);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('many', '[1, 2]') \g /dev/null
select array_agg(id order by id) as ids, array_agg(token order by id) as tokens from q.claim('many', 2) \gset
select pg_temp.pgq_state() as before \gset

select throws_ok(format($$ select * from q.fail_many(%L, %L, array['only one']) $$, :'ids', :'tokens'), '22023', null,
  'fewer errors than ids are rejected');
select throws_ok(format($$ select * from q.fail_many(%L, %L, array['a', 'b']) $$, :'ids', (:'tokens'::uuid[])[1:1]), '22023', null,
  'fewer tokens than ids are rejected');
select throws_ok(format($$ select * from q.fail_many(null, %L, array['a', 'b']) $$, :'tokens'), '22004', null, 'NULL ids are rejected');
select throws_ok(format($$ select * from q.fail_many(%L, %L, array['a', 'b'], retry_in => '-1 minute') $$, :'ids', :'tokens'),
  '22023', null, 'a negative retry_in is rejected');
select is(pg_temp.pgq_state(), :'before', 'the rejected calls failed no job, not even the valid pairs');
select is((select count(*)::integer from q.fail_many(:'ids', :'tokens', array['a', 'b']) where status = 'retry'), 2,
  '(the same claims fail fine)');

select * from finish();
rollback;
