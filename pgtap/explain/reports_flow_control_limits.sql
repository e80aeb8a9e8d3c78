-- Flow control's reasons (q.flow_block_reason) are rows of q.explain: a job
-- held by its concurrency key, a waiting job whose queue's slots are all
-- taken (then it is not "first in line"), and nothing extra for a queue
-- without limits.
begin;
select plan(6);

select q.enqueue('fl_free', '{}') as free_id \gset
select is((select count(*)::integer from q.explain(:free_id) where code in ('concurrency', 'key_concurrency', 'rate')), 0,
  'a queue without limits: no limit reason');
select is((select code from q.explain(:free_id)), 'ready', 'and the job is first in line');

select q.configure('fl', concurrency => 1, key_concurrency => 1) \g /dev/null
select q.enqueue('fl', '{"n": 1}', concurrency_key => 'k') as running_id \gset
select q.enqueue('fl', '{"n": 2}', concurrency_key => 'k') as held_id \gset
select q.enqueue('fl', '{"n": 3}') as waiting_id \gset
select count(*) from q.claim('fl') \g /dev/null

select results_eq(format('select code, detail from q.explain(%s)', :held_id),
  $$ values ('key_concurrency', '{"limit": "key_concurrency"}'::jsonb) $$,
  'a held job: one row, its key''s slots are taken (no claim-order reasons: it is not in the claim index)');
select matches((select message from q.explain(:held_id)), :'running_id', 'naming the job that holds the key''s slot');
select results_eq(format('select code from q.explain(%s) order by code', :waiting_id),
  $$ values ('concurrency') $$,
  'a waiting job of a full queue: the concurrency limit, and not "ready"');
select throws_ok('select * from q.explain(null)', '22004', null, 'input checks unchanged');

select * from finish();
rollback;
