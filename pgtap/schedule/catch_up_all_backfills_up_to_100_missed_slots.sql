-- catch_up => 'all': every missed slot fires, oldest first, up to the newest
-- 100 missed ones (the cap), plus the slots still on time.
begin;
select plan(5);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 02:00Z';
select q.schedule('daily', '0 3 * * *', 'catchup', catch_up => 'all') \g /dev/null
select q.schedule('minutely', '* * * * *', 'catchup', catch_up => 'all') \g /dev/null
reset pgq.schedule_now;
-- Nobody reaps for a week.
select pg_temp.reap_at('2026-12-08 12:00:30Z');
select is(pg_temp.fired('daily'),
  array['2026-12-01T03:00:00Z', '2026-12-02T03:00:00Z', '2026-12-03T03:00:00Z', '2026-12-04T03:00:00Z',
        '2026-12-05T03:00:00Z', '2026-12-06T03:00:00Z', '2026-12-07T03:00:00Z', '2026-12-08T03:00:00Z'],
  'a daily schedule gets one job per missed day');
select is(cardinality(pg_temp.fired('minutely')), 101, 'a minutely one gets the cap of 100 missed slots plus the one on time');
select is((pg_temp.fired('minutely'))[1], '2026-12-08T10:20:00Z', 'the newest 100 missed slots (10:20 to 11:59)');
select is((pg_temp.fired('minutely'))[101], '2026-12-08T12:00:00Z', 'and the on-time slot (12:00)');
select is((select next_fire_at from q_data.schedule where name = 'minutely'), '2026-12-08 12:01Z'::timestamptz, 'then it goes on');

select * from finish();
rollback;
