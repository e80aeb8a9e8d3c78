-- With keep_completed, a completed job is copied to q_data.job_history as
-- 'completed' with its payload, attempt, errors and finish time.
begin;
select plan(4);

select q.configure('kept', keep_completed => true) \g /dev/null
select q.enqueue('kept', '{"keep": "me"}', priority => 3) as job_id \gset
select token as first_token from q.claim('kept') \gset
select q.fail(:job_id, :'first_token', 'flaky', retry_in => '0') \g /dev/null
select token as second_token from q.claim('kept') \gset
select clock_timestamp() as t0 \gset
select ok(q.complete(:job_id, :'second_token'), '(completed)');

select results_eq(
  $$ select h.state, h.payload, h.priority::integer, h.attempt::integer, h.errors->0->>'error'
       from q_data.job_history h where h.id = $$ || :job_id,
  $$ values ('completed', '{"keep": "me"}'::jsonb, 3, 2, 'flaky') $$,
  'the history row is the completed job: state, payload, priority, attempt and errors');
select ok((select finished_at between :'t0'::timestamptz and clock_timestamp() from q_data.job_history where id = :job_id),
  'finished_at is the completion time');
select is((select count(*)::integer from q_data.job where id = :job_id), 0, 'the job has left q_data.job');

select * from finish();
rollback;
