-- priority must fit a smallint, max_attempts be 1..32767, dedup_key be 1..512
-- bytes (22023). A rejected call writes nothing.
begin;
select plan(11);
\ir ../_helpers.psql

select q.enqueue('options', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.enqueue('options', '{}', priority => 32768) $$, '22023', null, 'priority 32768 is rejected');
select throws_ok($$ select q.enqueue('options', '{}', priority => -32769) $$, '22023', null, 'priority -32769 is rejected');
select throws_ok($$ select q.enqueue('options', '{}', priority => null) $$, '22023', null, 'a NULL priority is rejected');
select throws_ok($$ select q.enqueue('options', '{}', max_attempts => 0) $$, '22023', null, 'max_attempts 0 is rejected');
select throws_ok($$ select q.enqueue('options', '{}', max_attempts => -1) $$, '22023', null, 'a negative max_attempts is rejected');
select throws_ok($$ select q.enqueue('options', '{}', max_attempts => 32768) $$, '22023', null, 'max_attempts over 32767 is rejected');
select throws_ok($$ select q.enqueue('options', '{}', dedup_key => '') $$, '22023', null, 'an empty dedup_key is rejected');
select throws_ok(format($$ select q.enqueue('options', '{}', dedup_key => %L) $$, repeat('k', 513)), '22023', null,
  'a dedup_key over 512 bytes is rejected');
select throws_ok($$ select q.enqueue('new-queue', '{}', priority => 99999) $$, '22023', null,
  'a bad option on a new queue name is rejected');

select is(pg_temp.pgq_state(), :'before', 'the rejected enqueues wrote nothing: no job, no queue row');
select lives_ok(format($$ select q.enqueue('options', '{}', max_attempts => 32767, dedup_key => %L) $$, repeat('k', 512)),
  'the largest max_attempts and dedup_key are accepted');

select * from finish();
rollback;
