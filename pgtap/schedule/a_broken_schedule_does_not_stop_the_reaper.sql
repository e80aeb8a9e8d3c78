-- If firing schedules fails (here: a time zone that vanished from the zone
-- data, forced in behind the checks), the reap still recovers lost claims:
-- the failed fires roll back with a warning and stay due.
begin;
select plan(3);
\ir ../_schedule_helpers.psql
set local client_min_messages = error;  -- (the reap warns; expected here)

set local pgq.schedule_now = '2026-12-01 10:00:30Z';
select q.schedule('broken', '* * * * *', 'broken') \g /dev/null
reset pgq.schedule_now;
update q_data.schedule set timezone = 'Gone/Nowhere';
select q.enqueue('work', '{}') \g /dev/null
select id, token from q.claim('work', 1, lease => '1 second') \gset
update q_data.job set lease_until = clock_timestamp() - interval '1 second' where id = :id;

set local pgq.schedule_now = '2026-12-01 10:01:00.1Z';
select is(q.reap(), 1, 'the reap still recovered the expired claim');
reset pgq.schedule_now;
select is(pg_temp.fired('broken'), '{}'::text[], 'the broken schedule fired nothing');
select is((select next_fire_at from q_data.schedule), '2026-12-01 10:01Z'::timestamptz, 'and its slot is still due');

select * from finish();
rollback;
