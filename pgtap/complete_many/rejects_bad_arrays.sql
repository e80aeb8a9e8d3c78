-- ids and tokens must be non-NULL (22004), of equal length (22023) and at
-- most 10000 long (54000). A rejected call completes nothing.
begin;
select plan(6);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('many', '[1, 2]') \g /dev/null
select array_agg(id order by id) as ids, array_agg(token order by id) as tokens from q.claim('many', 2) \gset
select pg_temp.pgq_state() as before \gset

select throws_ok(format($$ select q.complete_many(%L, %L) $$, :'ids', (:'tokens'::uuid[])[1:1]), '22023', null,
  'more ids than tokens are rejected');
select throws_ok(format($$ select q.complete_many(%L, null) $$, :'ids'), '22004', null, 'NULL tokens are rejected');
select throws_ok(format($$ select q.complete_many(null, %L) $$, :'tokens'), '22004', null, 'NULL ids are rejected');
select throws_ok($$ select q.complete_many(array(select generate_series(1, 10001)::bigint),
                                           array(select gen_random_uuid() from generate_series(1, 10001))) $$,
  '54000', null, '10001 pairs are rejected');
select is(pg_temp.pgq_state(), :'before', 'the rejected calls completed nothing');
select is((select count(*)::integer from q.complete_many(:'ids', :'tokens')), 2, '(the same claims complete fine)');

select * from finish();
rollback;
