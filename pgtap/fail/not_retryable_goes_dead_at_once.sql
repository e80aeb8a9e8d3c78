-- retryable => false ends the job on its first failure: dead, in history,
-- with its error, however many attempts were left.
begin;
select plan(4);

select q.enqueue('fatal', '{"x": 1}', max_attempts => 10) as job_id \gset
select token as job_token from q.claim('fatal') \gset

select is(q.fail(:job_id, :'job_token', 'bad input, no point retrying', retryable => false), 'dead',
  'a non-retryable failure returns ''dead''');
select is((select count(*)::integer from q_data.job where id = :job_id), 0, 'the job has left q_data.job');
select results_eq(
  $$ select state, payload, attempt::integer, errors->0->>'error' from q_data.job_history where id = $$ || :job_id,
  $$ values ('dead', '{"x": 1}'::jsonb, 1, 'bad input, no point retrying') $$,
  'it is dead in history with its payload, attempt and error');
select is((select dead::integer from q.stats() where queue = 'fatal'), 1, 'stats counts it as dead');

select * from finish();
rollback;
