-- pgq.schedule_now steers the scheduler's clock, for tests, where the
-- database allows it (q.allow_test_clock) and only for members of pgq_admin:
-- a worker that set it to next year would fire a year of slots early. A
-- worker's setting is ignored with a warning and its reap fires on the real
-- clock (up to 0007 that reap fired nothing, silently); other clocks (leases,
-- backoff) never read the setting.
begin;
select plan(5);
\ir ../_schedule_helpers.psql
set local client_min_messages = error;  -- (the ignored setting warns; expected here)

-- Due a few minutes ago on the real clock.
select set_config('pgq.schedule_now', (clock_timestamp() - interval '5 minutes')::text, true) \g /dev/null
select q.schedule('minutely', '* * * * *', 'clock') \g /dev/null
reset pgq.schedule_now;

set local role pgq_worker;
set local pgq.schedule_now = '2099-12-01 10:00:30Z';
select q.reap() \g /dev/null
reset pgq.schedule_now;
reset role;
select is(cardinality(pg_temp.fired('minutely')), 1, 'a worker''s clock is ignored: its reap fires the due slot on the real clock');
select cmp_ok((select next_fire_at from q_data.schedule), '<=', clock_timestamp() + interval '1 minute',
  'and the next slot is the real one, not in 2099');
select lives_ok($$ set local role pgq_worker; set local pgq.schedule_now = '2030-01-01Z'; select q.reap() $$,
  'a worker''s reap with the setting is not an error');
select throws_ok($$ set local role pgq_worker; select q.schedule_now() $$,
  '42501', null, 'only pgq''s own functions read the clock (42501)');
select throws_ok($$ set local role pgq_worker; select q.allow_test_clock(true) $$,
  '42501', null, 'a worker cannot turn the test clock on (42501)');

select * from finish();
rollback;
