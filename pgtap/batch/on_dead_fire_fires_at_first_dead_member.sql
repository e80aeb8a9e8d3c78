-- on_dead => 'fire': the first dead member of a sealed batch enqueues the
-- callback at once, while other members still run; later ends add nothing.
begin;
select plan(3);
\ir ../_helpers.psql

select q.create_batch('batch_fire_cb', on_dead => 'fire') as b \gset
select q.enqueue_after('batch_fire', '{}', '{}', batch => :b) as m1 \gset
select q.enqueue_after('batch_fire', '{}', '{}', batch => :b) as m2 \gset
select q.seal_batch(:b) \g /dev/null
select q.fail(c.id, c.token, 'x', retryable => false) from q.claim('batch_fire') c where c.id = :m1 \g /dev/null
select is((select count(*) from q.jobs('batch_fire_cb'))::integer, 1, 'the first dead member fired the callback');
select is((select payload -> 'batch' -> 'dead' from q.jobs('batch_fire_cb')), '1'::jsonb, 'with dead = 1');
select q.complete(c.id, c.token) from q.claim('batch_fire') c where c.id = :m2 \g /dev/null
select is((select count(*) from q.jobs('batch_fire_cb'))::integer, 1, 'the last member adds no second callback');

select * from finish();
rollback;
