-- Interval schedules fire at whole multiples of their length since
-- 1970-01-01 00:00 UTC: "every 30 seconds" at :00 and :30, whenever it was
-- created, and the time zone plays no part.
begin;
select plan(4);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 10:00:07.25Z';
select next_fire_at as next from q.schedule('half-minute', queue => 'ticks', every => '30 seconds', timezone => 'Europe/Berlin') \gset
reset pgq.schedule_now;
select is(:'next'::timestamptz, '2026-12-01 10:00:30Z'::timestamptz, 'the first slot is the next :00 or :30');
select pg_temp.walk('2026-12-01 10:00:08Z', '2026-12-01 10:02:05Z', '1 second');
select is(pg_temp.fired('half-minute'),
  array['2026-12-01T10:00:30Z', '2026-12-01T10:01:00Z', '2026-12-01T10:01:30Z', '2026-12-01T10:02:00Z'],
  'reaped every second for two minutes: one job per 30-second slot');
select is(q.next_slot(null, '7 seconds', 'UTC', '2026-12-01 00:00:00.5Z'), '2026-12-01 00:00:05Z'::timestamptz,
  'every 7 seconds counts from the epoch (1,764,547,205 s is a multiple of 7)');
select is(q.next_slot(null, '1 day', 'UTC', '2026-12-01 00:00:00Z'), '2026-12-02 00:00:00Z'::timestamptz,
  'every 1 day is 24 hours from UTC midnight (use cron for local calendar times)');

select * from finish();
rollback;
