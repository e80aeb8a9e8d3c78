-- In a sealed batch the callback is enqueued by the transaction that ends the
-- last member, not before.
begin;
select plan(3);
\ir ../_helpers.psql

select q.create_batch('batch_last_cb') as b \gset
select q.enqueue_after('batch_last', '{}', '{}', batch => :b) as m1 \gset
select q.enqueue_after('batch_last', '{}', '{}', batch => :b) as m2 \gset
select q.seal_batch(:b) \g /dev/null
select q.complete(c.id, c.token) from q.claim('batch_last') c where c.id = :m1 \g /dev/null
select is((select count(*) from q.jobs('batch_last_cb'))::integer, 0, 'one member left: no callback');
select q.complete(c.id, c.token) from q.claim('batch_last') c where c.id = :m2 \g /dev/null
select is((select count(*) from q.jobs('batch_last_cb'))::integer, 1, 'the last member ended: the callback');
select is((select callback_id from q.batch(:b)), (select id from q.jobs('batch_last_cb')), 'q.batch names it');

select * from finish();
rollback;
