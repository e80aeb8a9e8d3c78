-- Each lost claim spends one unit of max_crashes; when it is spent the job
-- is dead (in history with every loss), not requeued forever.
begin;
select plan(5);

select q.configure('crashy', max_crashes => 2) \g /dev/null
select q.enqueue('crashy', '{}', max_attempts => 10) as job_id \gset

select q.claim('crashy', 1, lease => '1 millisecond', owner => 0) \g /dev/null
select pg_sleep(0.05) \g /dev/null
select is(q.reap(), 1, '(first lost claim reaped)');
select is((select state::text || ' ' || crashes from q_data.job where id = :job_id), 'w 1', 'after one of two crashes the job waits again');

select q.claim('crashy', 1, lease => '1 millisecond', owner => 0) \g /dev/null
select pg_sleep(0.05) \g /dev/null
select is(q.reap(), 1, 'the second lost claim is reaped (and counted)');
select results_eq(
  $$ select state, crashes::integer, attempt::integer from q_data.job_history where id = $$ || :job_id,
  $$ values ('dead', 2, 2) $$,
  'with the crash budget spent the job is dead, though attempts were left');
select results_eq(
  $$ select (e->>'attempt')::integer, e->>'error', (e->>'crashed')::boolean
       from q_data.job_history h, jsonb_array_elements(h.errors) with ordinality x(e, n) where h.id = $$ || :job_id || $$ order by n $$,
  $$ values (1, 'claim lost (lease expired)', true), (2, 'claim lost (lease expired); crash budget spent', true) $$,
  'its history keeps both losses, the last saying the budget is spent');

select * from finish();
rollback;
