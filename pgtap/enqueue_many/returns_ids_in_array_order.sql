-- enqueue_many returns one id per element, in the order of the array, and
-- the jobs are claimed in that order too.
begin;
select plan(4);

create temp table ids as
  select row_number() over () as n, id from q.enqueue_many('many', '[{"i": 1}, {"i": 2}, {"i": 3}, {"i": 4}]') as id;

select is((select count(*)::integer from ids), 4, 'one id per element');
select results_eq(
  $$ select j.payload from ids join q_data.job j on j.id = ids.id order by ids.n $$,
  $$ values ('{"i": 1}'::jsonb), ('{"i": 2}'::jsonb), ('{"i": 3}'::jsonb), ('{"i": 4}'::jsonb) $$,
  'the n-th id is the job of the n-th element');
select is(array(select id from ids order by n), array(select id from ids order by id), 'ids ascend in array order');
select results_eq(
  $$ select payload from q.claim('many', 4) $$,
  $$ values ('{"i": 1}'::jsonb), ('{"i": 2}'::jsonb), ('{"i": 3}'::jsonb), ('{"i": 4}'::jsonb) $$,
  'the batch is claimed in array order');

select * from finish();
rollback;
