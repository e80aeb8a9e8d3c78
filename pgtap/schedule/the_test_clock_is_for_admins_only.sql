-- pgq.schedule_now steers the scheduler's clock, for tests. Only members of
-- pgq_admin may use it: a worker that set it to next year would fire a
-- year of slots early. Its reap still runs (claims are recovered) but fires
-- nothing; other clocks (leases, backoff) never read the setting.
begin;
select plan(3);
\ir ../_schedule_helpers.psql
set local client_min_messages = error;  -- (the reap warns; expected here)

set local pgq.schedule_now = '2026-12-01 10:00:30Z';
select q.schedule('minutely', '* * * * *', 'clock') \g /dev/null
reset pgq.schedule_now;

set local role pgq_worker;
set local pgq.schedule_now = '2027-12-01 10:00:30Z';
select q.reap() \g /dev/null
reset pgq.schedule_now;
reset role;
select is(pg_temp.fired('minutely'), '{}'::text[], 'a worker setting the clock fires nothing');
select is((select next_fire_at from q_data.schedule), '2026-12-01 10:01Z'::timestamptz, 'and moves no schedule');
select throws_ok($$ set local role pgq_worker; set local pgq.schedule_now = '2030-01-01Z'; select q.schedule_now() $$,
  '42501', null, 'the clock refuses a non-admin (42501)');

select * from finish();
rollback;
