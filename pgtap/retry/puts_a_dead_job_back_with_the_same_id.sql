-- retry puts a dead job back as waiting: the same id, attempt 0, its errors
-- kept; it leaves history and runs again.
begin;
select plan(6);

select q.enqueue('again', '{"n": 1}', max_attempts => 1) as job_id \gset
select q.fail(id, token, 'first life') from q.claim('again') \g /dev/null
select is((select state from q_data.job_history where id = :job_id), 'dead', '(the job is dead)');

select is(q.retry(:job_id), :job_id::bigint, 'retry returns the same id');
select results_eq(
  $$ select state::text, attempt::integer, crashes, payload, errors->0->>'error' from q_data.job where id = $$ || :job_id,
  $$ values ('w', 0, null::smallint, '{"n": 1}'::jsonb, 'first life') $$,
  'the job is waiting again with attempt 0, its payload and its earlier errors');
select is((select count(*)::integer from q_data.job_history where id = :job_id), 0, 'it has left history');

select id as claimed_id, attempt as claimed_attempt, token as t from q.claim('again') \gset
select is(:claimed_attempt, 1, 'it is claimed again as attempt 1');
select q.fail(:job_id, :'t', 'second life') \g /dev/null
select results_eq(
  $$ select e->>'error' from q_data.job_history h, jsonb_array_elements(h.errors) with ordinality x(e, n) where h.id = $$ || :job_id || $$ order by n $$,
  $$ values ('first life'), ('second life') $$,
  'dying again, it keeps the errors of both lives');

select * from finish();
rollback;
