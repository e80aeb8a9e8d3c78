-- idempotency_key names a whole call (design.md#retrying-a-bulk-enqueue): a producer whose
-- COMMIT reply was lost retries with the same key and gets the same ids,
-- and nothing is added, even after the jobs finished. The receipt is kept
-- 24 hours; q.reap deletes older ones. The same key for a call of another
-- size is a mistake (22023).
begin;
select plan(8);

select array_agg(id order by ord) as first from q.enqueue_many('idem', '[1, 2, 3]', idempotency_key => 'batch-7')
  with ordinality as t(id, ord) \gset
select array_agg(id order by ord) as again from q.enqueue_many('idem', '[1, 2, 3]', idempotency_key => 'batch-7')
  with ordinality as t(id, ord) \gset
select is(:'again'::bigint[], :'first'::bigint[], 'the retried call returns the same ids, in order');
select is((select count(*)::integer from q_data.job), 3, 'and adds nothing');

select count(q.complete(c.id, c.token)) from q.claim('idem', 3) c \g /dev/null
select is(array(select e from q.enqueue_many('idem', '[1, 2, 3]', idempotency_key => 'batch-7') e), :'first'::bigint[],
  'after the jobs finished, a retry still returns their ids');
select is((select count(*)::integer from q_data.job), 0, 'and still adds nothing');

select is((select count(*)::integer from q.enqueue_many('idem', '[1, 2, 3]', idempotency_key => 'batch-8')), 3,
  'another key is another call');
select throws_ok($$ select q.enqueue_many('idem', '[1, 2]', idempotency_key => 'batch-7') $$, '22023',
  'idempotency_key ''batch-7'' was used for a call of 3 jobs, this one has 2', 'the same key for a call of another size is refused');

update q_data.enqueue_receipt set created_at = now() - interval '25 hours' where key = 'batch-7';
select q.reap() \g /dev/null
select is((select array_agg(key order by key) from q_data.enqueue_receipt), array['batch-8'], 'q.reap deletes receipts older than 24 hours');
select isnt(array(select e from q.enqueue_many('idem', '[1, 2, 3]', idempotency_key => 'batch-7') e), :'first'::bigint[],
  'after that the key makes new jobs');

select * from finish();
rollback;
