-- q.configure sets limits (per defaults to 1 second), leaves the others as
-- they are, makes the slot rows, and unlimit removes a limit; removing the
-- key limit makes held jobs claimable.
begin;
select plan(6);

select q.configure('set', concurrency => 3, rate => 50) \g /dev/null
select results_eq($$ select concurrency, key_concurrency, ordered, rate, per from q_data.queue where name = 'set' $$,
  $$ values (3, null::integer, false, 50, interval '1 second') $$, 'concurrency and rate set, per 1 second by default');
select is((select count(*)::integer from q_data.queue_slot s join q_data.queue qq on qq.id = s.queue_id where qq.name = 'set'), 3, 'three queue slots');
select is((select count(*)::integer from q_data.rate_slot s join q_data.queue qq on qq.id = s.queue_id where qq.name = 'set'), 50, 'fifty rate slots');

select q.configure('set', key_concurrency => 1) \g /dev/null
select q.enqueue('set', jsonb_build_object('i', g), concurrency_key => 'k') from generate_series(1, 3) g \g /dev/null
select q.configure('set', unlimit => array['concurrency', 'key_concurrency', 'rate']) \g /dev/null
select results_eq($$ select concurrency, key_concurrency, rate, per from q_data.queue where name = 'set' $$,
  $$ values (null::integer, null::integer, null::integer, null::interval) $$, 'unlimit removes them');
select is((select count(*)::integer from q_data.job where state = 'h'), 0, 'held jobs are waiting again');
select is((select count(*)::integer from q.claim('set', 10)), 3, 'and all three can be claimed');

select * from finish();
rollback;
