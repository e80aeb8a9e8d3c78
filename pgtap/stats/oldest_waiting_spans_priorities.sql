-- The claim index is sorted by priority first, so the oldest due job is not
-- its first entry when priorities differ: q.stats visits every priority. A
-- due scheduled job (not promoted yet) counts as waiting.
begin;
select plan(3);

select q.enqueue('prio', '{}', priority => 9) as high_id \gset
select q.enqueue('prio', '{}', priority => 0) as low_id \gset
select q.enqueue('prio', '{}', priority => -3) as lowest_id \gset
update q_data.job set run_at = now() - interval '1 minute' where id = :high_id;
update q_data.job set run_at = now() - interval '7 minutes' where id = :low_id;
update q_data.job set run_at = now() - interval '3 minutes' where id = :lowest_id;

select is((select oldest_waiting from q.stats() where queue = 'prio'), interval '7 minutes',
  'the oldest job of a lower priority is found (7 minutes), not the first in claim order (1 minute)');

select q.enqueue('prio', '{}', run_at => clock_timestamp() + interval '1 hour') as due_id \gset
update q_data.job set run_at = now() - interval '9 minutes' where id = :due_id;
select is((select oldest_waiting from q.stats() where queue = 'prio'), interval '9 minutes',
  'a due scheduled job the reaper has not promoted is the oldest waiting one');

select q.pause('empty') \g /dev/null
select is((select oldest_waiting from q.stats() where queue = 'empty'), null::interval,
  'a queue with nothing due has no oldest_waiting');

select * from finish();
rollback;
