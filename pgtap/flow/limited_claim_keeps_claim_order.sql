-- A limited queue's claim takes jobs in the same order as an unlimited one:
-- highest priority first, then oldest; due scheduled jobs join when short.
begin;
select plan(2);

select (q.configure('lim_order', concurrency => 10)).concurrency as c \gset
select q.enqueue('lim_order', '{"n": 1}') \g /dev/null
select q.enqueue('lim_order', '{"n": 2}', priority => 5) \g /dev/null
select q.enqueue('lim_order', '{"n": 3}') \g /dev/null
select q.enqueue('lim_order', '{"n": 4}', run_at => clock_timestamp() + interval '1 hour') as due_id \gset
update q_data.job set run_at = now() - interval '1 minute' where id = :due_id;

select results_eq($$ select payload from q.claim('lim_order', 2) $$,
  $$ values ('{"n": 2}'::jsonb), ('{"n": 1}'::jsonb) $$, 'the highest priority, then the oldest');
select results_eq($$ select payload from q.claim('lim_order', 5) $$,
  $$ values ('{"n": 3}'::jsonb), ('{"n": 4}'::jsonb) $$, 'then the rest, including the due scheduled job');

select * from finish();
rollback;
