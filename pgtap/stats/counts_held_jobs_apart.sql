-- Held jobs (their concurrency key's slots are taken) are counted in held,
-- not in waiting (0008, design.md#held-jobs-are-visible: the Queues page said "waiting 3" and
-- its list showed none). waiting is what a claim can take now.
begin;
select plan(2);

select q.configure('keyed', key_concurrency => 1) \g /dev/null
select q.enqueue('keyed', '{}', concurrency_key => 'acme') from generate_series(1, 3) \g /dev/null
select q.enqueue('keyed', '{}') \g /dev/null

select results_eq(
  $$ select waiting::integer, held::integer, waiting_exact, held_exact from q.stats() where queue = 'keyed' $$,
  $$ values (2, 2, true, true) $$,
  'one admitted acme job and one without a key wait; two acme jobs are held');
select results_eq(
  $$ select held_exact from q.stats(exact_up_to => 1) where queue = 'keyed' $$,
  $$ values (false) $$,
  'above exact_up_to held is an estimate, flagged as such');

select * from finish();
rollback;
