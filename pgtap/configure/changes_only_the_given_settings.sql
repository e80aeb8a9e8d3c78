-- configure sets the settings it is given, leaves the others (NULL) as they
-- were, returns the queue's row, and creates the queue if needed.
begin;
select plan(4);

select results_eq(
  $$ select name, lease, max_attempts::integer, max_crashes::integer, backoff_base, backoff_max, keep_completed, retention
       from q.configure('tuned', lease => '1 minute', max_attempts => 7) $$,
  $$ values ('tuned', interval '1 minute', 7, 3, interval '1 second', interval '1 hour', false, interval '7 days') $$,
  'configure creates the queue and returns it: the given settings set, the rest defaults');

select q.configure('tuned', max_crashes => 9, backoff_base => '2 seconds', backoff_max => '10 minutes',
                   keep_completed => true, retention => '1 day') \g /dev/null
select results_eq(
  $$ select lease, max_attempts::integer, max_crashes::integer, backoff_base, backoff_max, keep_completed, retention
       from q_data.queue where name = 'tuned' $$,
  $$ values (interval '1 minute', 7, 9, interval '2 seconds', interval '10 minutes', true, interval '1 day') $$,
  'a second call changes its settings and keeps the earlier ones');

select q.configure('tuned') \g /dev/null
select results_eq(
  $$ select lease, max_attempts::integer, max_crashes::integer, backoff_base, backoff_max, keep_completed, retention
       from q_data.queue where name = 'tuned' $$,
  $$ values (interval '1 minute', 7, 9, interval '2 seconds', interval '10 minutes', true, interval '1 day') $$,
  'a call with no settings changes nothing');
select is((select count(*)::integer from q_data.queue where name = 'tuned'), 1, 'there is one row for the queue');

select * from finish();
rollback;
