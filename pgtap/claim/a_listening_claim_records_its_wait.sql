-- Wake-ups on demand (design.md#wake-ups-on-demand): a claim made with pgq.listening = on and an
-- owner key records in q_data.waiter whether its session now waits for the
-- queue. Short (with pgq.wait_when = empty, as the worker sends: empty): it
-- waits (and pgq.claim_waiting = 'new' the first time); otherwise the wait ends. Without the setting, or without a key, nothing
-- is written. That the enqueue trigger then notifies only waited-for queues
-- is for pytest (NOTIFY is delivered at commit): tests/core/test_notify_on_demand.py.
begin;
select plan(12);

select q.session_key() as key \gset

select is((select count(*) from q.claim('wait', 5, owner => :key)), 0::bigint, 'an empty claim without pgq.listening...');
select is((select count(*) from q_data.waiter), 0::bigint, '...records no wait');

set local pgq.listening = on;
select count(*) from q.claim('wait', 5) \g /dev/null
select is((select count(*) from q_data.waiter), 0::bigint, 'a lease-only listening claim records no wait (no session to wake)');

select count(*) from q.claim('wait', 5, owner => :key) \g /dev/null
select is((select array_agg(array[queue, session_key::text]) from q_data.waiter), array[array['wait', :'key']],
  'an empty listening claim with a key records that its session waits for the queue (even one nobody used yet)');
select is(current_setting('pgq.claim_waiting', true), 'new', 'and says that it started the wait');

select set_config('pgq.claim_waiting', '', true) \g /dev/null
select count(*) from q.claim('wait', 5, owner => :key) \g /dev/null
select is(current_setting('pgq.claim_waiting', true), '', 'a second empty claim adds nothing and says nothing');
select is((select count(*) from q_data.waiter), 1::bigint, 'one row per queue and session');

select q.enqueue('wait', '{}') \g /dev/null
select is((select count(*) from q.claim('wait', 5, owner => :key)), 1::bigint, 'a claim that finds one job of 5...');
select is((select count(*) from q_data.waiter), 1::bigint, '...came back short: by default its session still waits');

set local pgq.wait_when = empty;
select q.enqueue('wait', '{}') \g /dev/null
select is((select count(*) from q.claim('wait', 5, owner => :key)), 1::bigint, 'with pgq.wait_when = empty (the worker) a claim that finds a job...');
select is((select count(*) from q_data.waiter), 0::bigint, '...ends the wait: a busy worker needs no NOTIFY');
select count(*) from q.claim('wait', 5, owner => :key) \g /dev/null
select is((select count(*) from q_data.waiter), 1::bigint, 'and only an empty claim starts it again');

select * from finish();
rollback;
