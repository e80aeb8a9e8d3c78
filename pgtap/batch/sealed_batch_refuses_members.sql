-- A sealed batch takes no new member (55000); an unknown batch is P0002.
begin;
select plan(2);
\ir ../_helpers.psql

select q.create_batch('batch_sealed_cb') as b \gset
select q.seal_batch(:b) \g /dev/null
select throws_ok(format('select q.enqueue_after(%L, %L, %L, batch => %s)', 'batch_sealed', '{}', '{}', :b),
                 '55000', null, 'joining a sealed batch: 55000');
select throws_ok($$ select q.enqueue_after('batch_sealed', '{}', '{}', batch => 9000000000000) $$,
                 'P0002', null, 'an unknown batch: P0002');

select * from finish();
rollback;
