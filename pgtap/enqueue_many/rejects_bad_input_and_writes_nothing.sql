-- payloads must be a JSON array (22023) of at most 10000 elements (54000),
-- each at most 1 MiB (54000); options as for enqueue. A rejected batch
-- inserts no job at all and creates no queue row.
begin;
select plan(14);
\ir ../_helpers.psql

select q.enqueue('many', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.enqueue_many('many', '{"a": 1}') $$, '22023', null, 'an object instead of an array is rejected');
select throws_ok($$ select q.enqueue_many('many', '"text"') $$, '22023', null, 'a string instead of an array is rejected');
select throws_ok($$ select q.enqueue_many('many', '1') $$, '22023', null, 'a number instead of an array is rejected');
select throws_ok($$ select q.enqueue_many('many', 'null') $$, '22023', null, 'JSON null instead of an array is rejected');
select throws_ok($$ select q.enqueue_many('many', null) $$, '22023', null, 'a NULL batch is rejected');
select throws_ok($$ select q.enqueue_many('many', (select jsonb_agg(i) from generate_series(1, 10001) i)) $$, '54000', null,
  '10001 elements are rejected (54000)');
select throws_ok($$ select q.enqueue_many('many', jsonb_build_array(1, 2, to_jsonb(repeat('a', 1048576)))) $$, '54000', null,
  'one element over 1 MiB rejects the whole batch (54000)');
select throws_ok($$ select q.enqueue_many('many', '[1, 2]', priority => 40000) $$, '22023', null, 'an out-of-range priority is rejected');
select throws_ok($$ select q.enqueue_many('many', '[1, 2]', max_attempts => 0) $$, '22023', null, 'max_attempts 0 is rejected');
select throws_ok($$ select q.enqueue_many('bad name', '[1, 2]') $$, '22023', null, 'a bad queue name is rejected');
select throws_ok($$ select q.enqueue_many(null, '[1, 2]') $$, '22004', null, 'a NULL queue name is rejected');
select throws_ok($$ select q.enqueue_many('new-queue', '[1, 2, "\u0000"]') $$, '22P05', null, 'an element with \u0000 is rejected');

select is(pg_temp.pgq_state(), :'before', 'the rejected batches inserted nothing and created no queue');

select is((select count(*)::integer from q.enqueue_many('many', (select jsonb_agg(i) from generate_series(1, 10000) i)))
  , 10000, '10000 elements are accepted');

select * from finish();
rollback;
