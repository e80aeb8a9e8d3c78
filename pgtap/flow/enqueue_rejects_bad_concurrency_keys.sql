-- A concurrency_key must be 1 to 512 bytes: 22023 otherwise, nothing written.
begin;
select plan(4);
\ir ../_helpers.psql

select q.configure('badkey', key_concurrency => 1) \g /dev/null
select pg_temp.pgq_state() as before \gset
select throws_ok($$ select q.enqueue('badkey', '{}', concurrency_key => '') $$, '22023', null, 'an empty key');
select throws_ok($$ select q.enqueue('badkey', '{}', concurrency_key => repeat('x', 513)) $$, '22023', null, 'a 513-byte key');
select throws_ok($$ select q.enqueue_many('badkey', '[1]', concurrency_keys => array[repeat('x', 513)]) $$, '22023', null,
  'a 513-byte key in concurrency_keys');
select is(pg_temp.pgq_state(), :'before', 'nothing was written');

select * from finish();
rollback;
