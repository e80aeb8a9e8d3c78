-- The queue's max_attempts-th failure makes the job dead; its history row
-- keeps every attempt's error, in order.
begin;
select plan(5);

select q.configure('attempts', max_attempts => 3) \g /dev/null
select q.enqueue('attempts', '{}') as job_id \gset

select token as t from q.claim('attempts') \gset
select is(q.fail(:job_id, :'t', 'error one', retry_in => '0'), 'retry', '1st of 3 failures: retry');
select token as t from q.claim('attempts') \gset
select is(q.fail(:job_id, :'t', 'error two', retry_in => '0'), 'retry', '2nd of 3 failures: retry');
select token as t from q.claim('attempts') \gset
select is(q.fail(:job_id, :'t', 'error three', retry_in => '0'), 'dead', '3rd of 3 failures: dead');

select results_eq(
  $$ select (e->>'attempt')::integer, e->>'error', (e->>'crashed')::boolean
       from q_data.job_history h, jsonb_array_elements(h.errors) with ordinality x(e, n)
      where h.id = $$ || :job_id || $$ order by n $$,
  $$ values (1, 'error one', false), (2, 'error two', false), (3, 'error three', false) $$,
  'the dead job keeps every attempt''s error, in order');
select is((select state from q_data.job_history where id = :job_id), 'dead', 'the job is dead in history');

select * from finish();
rollback;
