-- Europe/Berlin, 2026: clocks jump 02:00 -> 03:00 on March 29 and fall back
-- 03:00 -> 02:00 on October 25. A daily 02:30 schedule fires exactly once on
-- each of those days: on spring-forward day 02:30 does not exist and it fires
-- at 03:30 CEST (01:30 UTC, the instant 02:30 CET would have been); on
-- fall-back day 02:30 happens twice and it fires at the second one, 02:30 CET
-- (01:30 UTC). A UTC hourly schedule is unaffected: 24 jobs a day.
-- Reaped every 5 minutes through each day.
begin;
select plan(6);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-03-28 00:00Z';
select q.schedule('berlin-0230', '30 2 * * *', 'dst', timezone => 'Europe/Berlin') \g /dev/null
select q.schedule('utc-hourly', '0 * * * *', 'dst') \g /dev/null
reset pgq.schedule_now;
select pg_temp.walk('2026-03-28 00:00Z', '2026-03-30 00:00Z', '5 minutes');
select is(pg_temp.fired('berlin-0230'), array['2026-03-28T01:30:00Z', '2026-03-29T01:30:00Z'],
  'spring forward: the day before at 02:30 CET, the day itself once, at 03:30 CEST (01:30 UTC)');
select is((select count(*)::integer from q_data.job where payload->>'schedule' = 'utc-hourly' and payload->>'slot' like '2026-03-29%'), 24,
  'spring forward: the UTC hourly schedule fired 24 times that day');

-- The autumn walk starts from a fresh clock: move the schedules on.
update q_data.schedule set next_fire_at = q.next_slot(spec, every, timezone, '2026-10-24 00:00Z');
select pg_temp.walk('2026-10-24 00:00Z', '2026-10-26 00:00Z', '5 minutes');
select is(array(select s from unnest(pg_temp.fired('berlin-0230')) s where s >= '2026-10'),
  array['2026-10-24T00:30:00Z', '2026-10-25T01:30:00Z'],
  'fall back: the day before at 02:30 CEST, the day itself once, at the second 02:30 (CET, 01:30 UTC)');
select is((select count(*)::integer from q_data.job where payload->>'schedule' = 'utc-hourly' and payload->>'slot' like '2026-10-25%'), 24,
  'fall back: the UTC hourly schedule fired 24 times that day');
select is((select (next_fire_at at time zone 'Europe/Berlin')::text from q_data.schedule where name = 'berlin-0230'), '2026-10-26 02:30:00',
  'the next slot is 02:30 local again');
select is((select count(*)::integer from q_data.job), (select count(distinct (payload->>'schedule', payload->>'slot'))::integer from q_data.job),
  'no slot of either schedule fired twice in the four days');

select * from finish();
rollback;
