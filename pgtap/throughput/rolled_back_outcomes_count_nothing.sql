-- The tally is written in the caller's transaction: a complete that rolls
-- back counts nothing (a sequence-based counter would have counted it).
begin;
select plan(2);

select count(*) from q.enqueue_many('rb', '[1, 2]') \g /dev/null
savepoint before_complete;
select q.complete(id, token) from q.claim('rb', 1) \g /dev/null
select is((select completed from q.throughput_totals() where queue = 'rb'), 1::bigint, '(the complete was counted)');
rollback to savepoint before_complete;
-- (No row at all: since 0008 q.throughput_totals lists only queues with an outcome.)
select is((select coalesce(sum(completed), 0) from q.throughput_totals() where queue = 'rb'), 0::numeric,
  'after the rollback nothing is counted');

select * from finish();
rollback;
