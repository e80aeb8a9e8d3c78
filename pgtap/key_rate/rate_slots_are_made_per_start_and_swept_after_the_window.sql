-- A key's rate slots are made one per start inside its window (revision 0008;
-- up to 0007, key_rate of them at the key's first enqueue), and the reaper's
-- sweep deletes those stamped more than key_per (+ 10 s) ago, even while the
-- key is busy; a key short of rows starts all the same.
begin;
select plan(6);

select q.configure('ks', key_concurrency => 5, key_rate => 3, key_per => '1 hour') \g /dev/null
select q.enqueue_many('ks', '[1, 2]', concurrency_key => 'K') \g /dev/null
select is((select count(*)::integer from q_data.key_rate_slot), 0, 'enqueued, not started: no rate slot');
select is((select count(*)::integer from q.claim('ks', 5)), 2, 'two starts');
select results_eq($$ select n::integer, used_at > '-infinity' from q_data.key_rate_slot order by n $$,
  $$ values (1, true), (2, true) $$, 'one stamped rate slot per start');
select q.flow_sweep(null, 1000) \g /dev/null
select is((select count(*)::integer from q_data.key_rate_slot), 2, 'inside the window they stay');
update q_data.key_rate_slot set used_at = used_at - interval '1 hour 11 seconds' where n = 1;
select q.flow_sweep(null, 1000) \g /dev/null
select results_eq($$ select n::integer from q_data.key_rate_slot $$, $$ values (2) $$,
  'the one out of its window goes, though the key still runs a job');
select q.enqueue('ks', '{}', concurrency_key => 'K') \g /dev/null
select is((select count(*)::integer from q.claim('ks', 1)), 1, 'and the key''s next start makes a row again');

select * from finish();
rollback;
