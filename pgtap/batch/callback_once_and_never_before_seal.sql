-- A batch's callback is not enqueued before q.seal_batch even when every
-- member has ended, is enqueued once at the seal with the counts, and never
-- again.
begin;
select plan(5);
\ir ../_helpers.psql

select q.create_batch('batch_cb', '{"report": 1}') as b \gset
select q.enqueue_after('batch_m', '{}', '{}', batch => :b) as m1 \gset
select q.enqueue_after('batch_m', '{}', '{}', batch => :b) as m2 \gset
select q.enqueue_after('batch_m', '{}', '{}', batch => :b) as m3 \gset
select q.complete(c.id, c.token) from q.claim('batch_m') c where c.id = :m1 \g /dev/null
select q.fail(c.id, c.token, 'x', retryable => false) from q.claim('batch_m') c where c.id = :m2 \g /dev/null
select q.cancel(:m3) \g /dev/null

select is((select count(*) from q.jobs('batch_cb'))::integer, 0, 'all members ended, not sealed: no callback');
select is(q.seal_batch(:b), true, 'sealing');
select is((select payload from q.jobs('batch_cb')),
          jsonb_build_object('report', 1, 'batch', jsonb_build_object('id', :b::bigint, 'completed', 1, 'dead', 1, 'cancelled', 1)),
          'one callback with the counts');
select is(q.seal_batch(:b), false, 'sealing again returns false');
select is((select count(*) from q.jobs('batch_cb'))::integer, 1, 'still one callback');

select * from finish();
rollback;
