-- q.schedule on an existing name replaces it. With the same timing (cron,
-- every, timezone) the next slot is kept, so a start-up sync after downtime
-- still catches up; new timing starts after now and after the last slot
-- fired (never a re-fire); the same definition again writes nothing.
begin;
select plan(7);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 02:00Z';
select q.schedule('nightly', '0 3 * * *', 'maintenance', '{"v": 1}') \g /dev/null
reset pgq.schedule_now;
select xmin::text as xmin_before, updated_at as updated_before from q_data.schedule \gset

-- A week later, workers start again and sync the same definition.
set local pgq.schedule_now = '2026-12-08 12:00Z';
select q.schedule('nightly', '0 3 * * *', 'maintenance', '{"v": 1}') \g /dev/null
select is((select xmin::text from q_data.schedule), :'xmin_before', 'the same definition again writes nothing');
select q.schedule('nightly', '0 3 * * *', 'maintenance', '{"v": 2}', priority => 3) \g /dev/null
select is((select next_fire_at from q_data.schedule), '2026-12-01 03:00Z'::timestamptz,
  'a new payload keeps the next slot (so the missed week is still caught up)');
select is((select (payload, priority::integer) from q_data.schedule), ('{"v": 2}'::jsonb, 3), 'the new payload and priority are stored');
reset pgq.schedule_now;
select pg_temp.reap_at('2026-12-08 12:00:01Z');
select is(pg_temp.fired('nightly'), array['2026-12-08T03:00:00Z'], 'the catch-up fires with the new definition');
select is((select payload->>'v' from q_data.job), '2', '(with the new payload)');

set local pgq.schedule_now = '2026-12-08 12:00:02Z';
select q.schedule('nightly', '*/30 * * * *', 'maintenance', '{"v": 2}', priority => 3) \g /dev/null
select is((select next_fire_at from q_data.schedule), '2026-12-08 12:30Z'::timestamptz, 'new timing: the next slot after now');
select cmp_ok((select updated_at from q_data.schedule), '>', :'updated_before'::timestamptz, 'updated_at moved');

select * from finish();
rollback;
