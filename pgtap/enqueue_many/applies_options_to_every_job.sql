-- run_at, priority and max_attempts apply to every job of the batch; a
-- future run_at schedules them all.
begin;
select plan(3);

select count(*) from q.enqueue_many('many', '[1, 2, 3]', run_at => '2999-01-01', priority => 4, max_attempts => 9) \g /dev/null
select count(*) from q.enqueue_many('many', '[4, 5]') \g /dev/null

select results_eq(
  $$ select state::text, run_at, priority::integer, max_attempts::integer from q_data.job
      where payload in ('1', '2', '3') order by id $$,
  $$ values ('s', '2999-01-01'::timestamptz, 4, 9), ('s', '2999-01-01'::timestamptz, 4, 9), ('s', '2999-01-01'::timestamptz, 4, 9) $$,
  'every job of a scheduled batch is scheduled with the given run_at, priority and max_attempts');
select results_eq(
  $$ select state::text, priority::integer, max_attempts from q_data.job where payload in ('4', '5') order by id $$,
  $$ values ('w', 0, null::smallint), ('w', 0, null::smallint) $$,
  'without options the jobs are waiting with priority 0 and the queue''s max_attempts');
select ok((select bool_and(run_at <= clock_timestamp()) from q_data.job where payload in ('4', '5')),
  'without run_at the jobs are due now');

select * from finish();
rollback;
