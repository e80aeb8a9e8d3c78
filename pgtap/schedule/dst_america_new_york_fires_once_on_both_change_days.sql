-- America/New_York, 2026: clocks jump 02:00 -> 03:00 on March 8 and fall
-- back 02:00 -> 01:00 on November 1. A daily 02:30 fires once on March 8, at
-- 03:30 EDT (07:30 UTC); a daily 01:30 fires once on November 1, at the
-- second 01:30 (EST, 06:30 UTC). A weekday 09:00 schedule keeps 09:00 local
-- across the change (13:00 UTC in summer time, 14:00 in winter).
begin;
select plan(3);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-03-07 00:00Z';
select q.schedule('ny-0230', '30 2 * * *', 'dst', timezone => 'America/New_York') \g /dev/null
select q.schedule('ny-0130', '30 1 * * *', 'dst', timezone => 'America/New_York') \g /dev/null
reset pgq.schedule_now;
select pg_temp.walk('2026-03-07 00:00Z', '2026-03-09 12:00Z', '5 minutes');
select is(pg_temp.fired('ny-0230'), array['2026-03-07T07:30:00Z', '2026-03-08T07:30:00Z', '2026-03-09T06:30:00Z'],
  'spring forward: 02:30 EST, then once at 03:30 EDT (07:30 UTC) on the day, then 02:30 EDT');

update q_data.schedule set next_fire_at = q.next_slot(spec, every, timezone, '2026-10-31 00:00Z');
delete from q_data.job;
select pg_temp.walk('2026-10-31 00:00Z', '2026-11-02 12:00Z', '5 minutes');
select is(pg_temp.fired('ny-0130'), array['2026-10-31T05:30:00Z', '2026-11-01T06:30:00Z', '2026-11-02T06:30:00Z'],
  'fall back: 01:30 EDT, then once on the day, at the second 01:30 (EST, 06:30 UTC), then 01:30 EST');
select is(array(select q.next_slot(q.cron_parse('0 9 * * mon-fri'), null, 'America/New_York', t)
                  from unnest(array['2026-10-30 12:00Z', '2026-11-02 12:00Z']::timestamptz[]) t),
  array['2026-10-30 13:00Z', '2026-11-02 14:00Z']::timestamptz[],
  'a weekday 09:00 stays 09:00 local: 13:00 UTC before the change, 14:00 UTC after');

select * from finish();
rollback;
