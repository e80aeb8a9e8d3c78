begin;
select plan(8);

select q.configure('jobs_t', keep_completed => true);
select q.enqueue('jobs_t', '{"n": 1}') as waiting_id \gset
select q.enqueue('jobs_t', '{"n": 2}', run_at => now() + interval '1 hour') as scheduled_id \gset
select q.enqueue('jobs_t', '{"n": 3}') as done_id \gset
select q.enqueue('other_t', '{"n": 4}') as other_id \gset
-- claim the oldest waiting job of jobs_t (n = 1), complete it
select id as claimed_id, token as claimed_token from q.claim('jobs_t', 1) \gset
select q.complete(:claimed_id, :'claimed_token');

select is((select count(*)::int from q.jobs()), 4, 'q.jobs lists live and finished jobs');
select is((select array_agg(id) from q.jobs()),
  array[:other_id, :done_id, :scheduled_id, :claimed_id]::bigint[],
  'q.jobs is ordered newest first');
select is((select state from q.jobs(id => :claimed_id)), 'completed', 'a kept completed job shows as completed');
select ok((select finished_at is not null and lease_until is null from q.jobs(id => :claimed_id)),
  'a finished job has finished_at and no lease');
select is((select state from q.jobs(id => :scheduled_id)), 'scheduled', 'a future job shows as scheduled');
select is((select count(*)::int from q.jobs(queue => 'other_t')), 1, 'q.jobs filters by queue');
select is((select count(*)::int from q.jobs(max_rows => 2)), 2, 'q.jobs returns at most max_rows');
select throws_ok($$ select * from q.jobs(state => 'finished') $$, '22023', null,
  'an unknown state is rejected with 22023');

select * from finish();
rollback;
