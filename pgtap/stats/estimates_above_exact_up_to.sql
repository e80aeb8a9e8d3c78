-- Counts are exact up to exact_up_to and the planner's estimate above it,
-- flagged per count; zero is always exact. Bad bounds are refused, nothing
-- written.
begin;
select plan(8);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('many', '[1, 2, 3, 4, 5, 6, 7, 8]') \g /dev/null
select count(*) from q.enqueue_many('many', '[1, 2, 3]', run_at => clock_timestamp() + interval '1 hour') \g /dev/null
select q.enqueue('few', '{}') \g /dev/null
analyze q_data.job;

select results_eq(
  $$ select queue, waiting::integer, scheduled::integer, waiting_exact, scheduled_exact, dead_exact
       from q.stats(exact_up_to => 10) order by queue $$,
  $$ values ('few', 1, 0, true, true, true), ('many', 8, 3, true, true, true) $$,
  'under the bound every count is exact');
select results_eq(
  $$ select queue, waiting_exact, scheduled_exact, dead_exact from q.stats(exact_up_to => 2) order by queue $$,
  $$ values ('few', true, true, true), ('many', false, false, true) $$,
  'above exact_up_to a count is flagged as an estimate; the small queue and zero dead stay exact');
select ok((select waiting >= 3 and scheduled >= 3 from q.stats(exact_up_to => 2) where queue = 'many'),
  'an estimate is never below exact_up_to + 1 (we counted that many)');
select is((select waiting from q.stats(exact_up_to => 0) where queue = 'few'), 1::bigint,
  'exact_up_to => 0 still gives a number (the estimate) for a non-empty queue');
select results_eq($$ select queue, waiting::integer from q.stats() order by queue $$,
  $$ values ('few', 1), ('many', 8) $$, 'the default bound (1000) counts small queues exactly');

select pg_temp.pgq_state() as before \gset
select throws_ok($$ select * from q.stats(exact_up_to => -1) $$, '22023',
  'exact_up_to must be between 0 and 1000000000, got -1', 'a negative bound is refused (22023)');
select throws_ok($$ select * from q.stats(exact_up_to => null) $$, '22023',
  'exact_up_to must be between 0 and 1000000000, got NULL', 'a NULL bound is refused (22023)');
select is(pg_temp.pgq_state(), :'before', 'nothing changed');

select * from finish();
rollback;
