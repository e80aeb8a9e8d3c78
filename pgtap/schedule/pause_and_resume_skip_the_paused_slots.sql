-- A paused schedule fires nothing and shows no next fire time; resumed, it
-- fires from its next slot after now: slots that passed while it was paused
-- are skipped, whatever the catch-up policy. Unknown names return false.
begin;
select plan(7);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 10:00:30Z';
select q.schedule('minutely', '* * * * *', 'pausing', catch_up => 'all') \g /dev/null
select ok(q.pause_schedule('minutely'), 'pause_schedule returns true');
reset pgq.schedule_now;
select is((select (paused, next_fire_at) from q.schedules()), (true, null::timestamptz), 'q.schedules shows it paused, with no next fire time');
select pg_temp.walk('2026-12-01 10:01Z', '2026-12-01 10:05Z', '30 seconds');
select is(pg_temp.fired('minutely'), '{}'::text[], 'a paused schedule fires nothing');

set local pgq.schedule_now = '2026-12-01 10:05:10Z';
select ok(q.resume_schedule('minutely'), 'resume_schedule returns true');
reset pgq.schedule_now;
select is((select next_fire_at from q.schedules()), '2026-12-01 10:06Z'::timestamptz, 'resumed, the next slot is the next after now');
select pg_temp.reap_at('2026-12-01 10:06:00.4Z');
select is(pg_temp.fired('minutely'), array['2026-12-01T10:06:00Z'], 'the paused slots were skipped, the next one fires');
select ok(not q.pause_schedule('nope') and not q.resume_schedule('nope'), 'unknown names return false');

select * from finish();
rollback;
