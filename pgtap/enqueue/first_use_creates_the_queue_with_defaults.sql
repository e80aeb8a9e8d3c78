-- A queue needs no set-up: the first enqueue creates its settings row with
-- the documented defaults; later enqueues reuse it.
begin;
select plan(3);

select is((select count(*)::integer from q_data.queue where name = 'fresh'), 0, '(no queue row before the first enqueue)');
select q.enqueue('fresh', '{}') \g /dev/null
select q.enqueue('fresh', '{}') \g /dev/null

select results_eq(
  $$ select paused, lease, max_attempts::integer, max_crashes::integer, backoff_base, backoff_max,
            keep_completed, retention
       from q_data.queue where name = 'fresh' $$,
  $$ values (false, interval '5 minutes', 5, 3, interval '1 second', interval '1 hour', false, interval '7 days') $$,
  'the first enqueue creates the queue with the defaults: lease 5 min, 5 attempts, 3 crashes, backoff 1 s..1 h, no kept completions, 7 days retention');
select is((select count(*)::integer from q_data.job j join q_data.queue qq on qq.id = j.queue_id where qq.name = 'fresh'), 2,
  'both jobs belong to the one queue row');

select * from finish();
rollback;
