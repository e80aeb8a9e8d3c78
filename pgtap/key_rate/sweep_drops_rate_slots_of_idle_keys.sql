-- The reaper's sweep keeps an idle key's slots while a start is in its rate
-- window, then drops its key slots and rate slots together; the key's next
-- job makes them again.
begin;
select plan(5);

select q.configure('ks', key_concurrency => 2, key_rate => 3, key_per => '1 hour') \g /dev/null
select q.enqueue('ks', '{}', concurrency_key => 'K') \g /dev/null
select c.id, c.token from q.claim('ks', 1) c \gset
select q.complete(:id, :'token') \g /dev/null

select q.flow_sweep(null, 1000) \g /dev/null
select results_eq($$ select (select count(*)::integer from q_data.key_slot), (select count(*)::integer from q_data.key_rate_slot) $$,
  $$ values (2, 3) $$, 'idle, but it started a job within the hour: its slots stay');
update q_data.key_rate_slot set used_at = used_at - interval '1 hour';
select q.flow_sweep(null, 1000) \g /dev/null
select results_eq($$ select (select count(*)::integer from q_data.key_slot), (select count(*)::integer from q_data.key_rate_slot) $$,
  $$ values (0, 0) $$, 'once the hour is over, key slots and rate slots go');
select q.enqueue('ks', '{}', concurrency_key => 'K') \g /dev/null
select results_eq($$ select (select count(*)::integer from q_data.key_slot), (select count(*)::integer from q_data.key_rate_slot) $$,
  $$ values (2, 3) $$, 'the key''s next job makes them again');
delete from q_data.key_rate_slot where n > 1;
update q_data.key_rate_slot set used_at = clock_timestamp();  -- the one left is in use
select is((select count(*)::integer from q.claim('ks', 1)), 1, 'a key short of rate slots (a racing sweep) still starts');
select is((select count(*)::integer from q_data.key_rate_slot), 3, 'and gets its slots back');

select * from finish();
rollback;
