-- dedup_keys must have one element per payload and keys of 1 to 512 bytes;
-- an idempotency_key too (22023); nothing is written.
begin;
select plan(5);
\ir ../_helpers.psql

select q.enqueue('keys', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.enqueue_many('keys', '[1, 2]', dedup_keys => array['a']) $$, '22023',
  'dedup_keys must have one element per payload (2 payloads), got 1', 'one key too few');
select throws_ok($$ select q.enqueue_many('keys', '[1]', dedup_keys => array['']) $$, '22023',
  'each dedup key must be 1 to 512 bytes, got 0', 'an empty key');
select throws_ok($$ select q.enqueue_many('keys', '[1]', dedup_keys => array[repeat('k', 513)]) $$, '22023',
  'each dedup key must be 1 to 512 bytes, got 513', 'a key over 512 bytes');
select throws_ok($$ select q.enqueue_many('keys', '[1]', idempotency_key => '') $$, '22023',
  'idempotency_key must be 1 to 512 bytes, got 0', 'an empty idempotency key');
select is(pg_temp.pgq_state(), :'before', 'nothing was written');

select * from finish();
rollback;
