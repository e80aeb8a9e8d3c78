-- Under REPEATABLE READ, claim takes its snapshot path: same order (priority,
-- then oldest), same n limit, due scheduled jobs promoted, claims recorded.
begin transaction isolation level repeatable read;
select plan(7);
set local track_functions = 'all';

select is(current_setting('transaction_isolation'), 'repeatable read', '(this transaction is REPEATABLE READ)');

select q.enqueue('rr', '{"n": 1}') \g /dev/null
select q.enqueue('rr', '{"n": 2}', priority => 5) \g /dev/null
select q.enqueue('rr', '{"n": 3}') \g /dev/null
select q.enqueue('rr', '{"n": 4}', run_at => clock_timestamp() + interval '1 hour') as due_id \gset
update q_data.job set run_at = now() - interval '1 minute' where id = :due_id;

select results_eq($$ select payload from q.claim('rr', 2) $$,
  $$ values ('{"n": 2}'::jsonb), ('{"n": 1}'::jsonb) $$,
  'the highest priority, then the oldest, n at most');
select results_eq($$ select payload from q.claim('rr', 5) $$,
  $$ values ('{"n": 3}'::jsonb), ('{"n": 4}'::jsonb) $$,
  'then the rest, including the due scheduled job');
select is((select count(*)::integer from q.claim('rr', 5)), 0, 'then nothing');
select is((select count(*)::integer from q_data.job where state = 'r' and token is not null and lease_until > clock_timestamp()), 4,
  'all four are running with a token and a lease');
select is((select count(distinct token)::integer from q_data.job), 4, 'each with its own token');

select cmp_ok((select s.calls from pg_stat_xact_user_functions s where s.schemaname = 'q' and s.funcname = 'claim_under_snapshot'),
  '>=', 3::bigint, 'the claims went through the snapshot path (q.claim_under_snapshot)');

select * from finish();
rollback;
