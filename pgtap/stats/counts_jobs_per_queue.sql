-- stats reports per queue: paused, waiting (due now, including due scheduled
-- jobs not yet promoted), scheduled (later), running, dead, and how long the
-- oldest due job has waited. "5 minutes ago" is set by moving run_at back.
begin;
select plan(3);

select count(*) from q.enqueue_many('busy', '[1, 2, 3, 4]') \g /dev/null
select q.enqueue('busy', '{}', run_at => clock_timestamp() + interval '1 hour') as due_id \gset
select q.enqueue('busy', '{}', run_at => clock_timestamp() + interval '1 hour') \g /dev/null
select q.enqueue('busy', '{}', max_attempts => 1, priority => 5) as dead_id \gset
select q.fail(id, token, 'x') from q.claim('busy') \g /dev/null
select q.claim('busy', 2) \g /dev/null
update q_data.job set run_at = now() - interval '1 minute' where id = :due_id;
update q_data.job set run_at = now() - interval '5 minutes'
 where id = (select min(j.id) from q_data.job j join q_data.queue qq on qq.id = j.queue_id where qq.name = 'busy' and j.state = 'w');
select q.pause('quiet') \g /dev/null

select results_eq(
  $$ select queue, paused, waiting::integer, scheduled::integer, running::integer, dead::integer, oldest_waiting
       from q.stats() where queue = 'busy' $$,
  $$ values ('busy', false, 3, 1, 2, 1, interval '5 minutes') $$,
  'busy: 2 waiting + 1 due scheduled = 3 waiting, 1 scheduled, 2 running, 1 dead, oldest waited 5 minutes');
select results_eq(
  $$ select queue, paused, waiting::integer, scheduled::integer, running::integer, dead::integer, oldest_waiting
       from q.stats() where queue = 'quiet' $$,
  $$ values ('quiet', true, 0, 0, 0, 0, null::interval) $$,
  'an empty paused queue: all zero, no oldest_waiting');
select results_eq($$ select queue from q.stats() $$, $$ values ('busy'), ('quiet') $$,
  'one row per queue, ordered by name');

select * from finish();
rollback;
