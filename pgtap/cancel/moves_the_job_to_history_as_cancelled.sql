-- cancel takes a waiting, scheduled or running job out of the queue into
-- history as 'cancelled' and returns true.
begin;
select plan(5);

select q.enqueue('cancel', '{"n": "waiting"}') as waiting_id \gset
select q.enqueue('cancel', '{"n": "scheduled"}', run_at => '2999-01-01') as scheduled_id \gset
select q.enqueue('cancel', '{"n": "running"}', priority => 9) as running_id \gset
select q.claim('cancel') \g /dev/null

select is(q.cancel(:waiting_id), true, 'a waiting job is cancelled');
select is(q.cancel(:scheduled_id), true, 'a scheduled job is cancelled');
select is(q.cancel(:running_id), true, 'a running job is cancelled');
select is((select count(*)::integer from q_data.job), 0, 'none of them is left in q_data.job');
select results_eq(
  $$ select id, state, payload->>'n' from q_data.job_history order by id $$,
  format($$ values (%s::bigint, 'cancelled', 'waiting'), (%s, 'cancelled', 'scheduled'), (%s, 'cancelled', 'running') $$,
         :waiting_id, :scheduled_id, :running_id),
  'all three are in history as cancelled, with their payloads');

select * from finish();
rollback;
