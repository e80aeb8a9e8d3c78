-- A paused queue hands out nothing, but still takes new jobs, and jobs
-- already running can finish. Other queues are unaffected.
begin;
select plan(5);

select count(*) from q.enqueue_many('paused', '[1, 2]') \g /dev/null
select id as running_id, token as running_token from q.claim('paused') \gset
select q.enqueue('other', '{}') \g /dev/null
select q.pause('paused') \g /dev/null

select is((select count(*)::integer from q.claim('paused', 10)), 0, 'a paused queue hands out no job');
select lives_ok($$ select q.enqueue('paused', '{"new": true}') $$, 'a paused queue still takes new jobs');
select is(q.complete(:running_id, :'running_token'), true, 'a job already running can still complete');
select is((select count(*)::integer from q.claim('other', 10)), 1, 'another queue is not paused');
select results_eq($$ select paused, waiting::integer from q.stats() where queue = 'paused' $$,
  $$ values (true, 2) $$, 'stats show the queue paused with its two waiting jobs');

select * from finish();
rollback;
