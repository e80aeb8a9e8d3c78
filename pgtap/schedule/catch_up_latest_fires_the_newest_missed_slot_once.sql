-- catch_up => 'latest' (the default): after a week with nobody reaping, a
-- daily schedule fires once, for the newest missed slot, then goes on.
begin;
select plan(3);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 02:00Z';
select q.schedule('daily', '0 3 * * *', 'catchup') \g /dev/null
reset pgq.schedule_now;
select pg_temp.reap_at('2026-12-01 03:00:01Z');
-- Down from 03:00:02 on the 1st until 12:00 on the 8th.
select pg_temp.reap_at('2026-12-08 12:00Z');
select is(pg_temp.fired('daily'), array['2026-12-01T03:00:00Z', '2026-12-08T03:00:00Z'],
  'one job for the missed week: its newest slot');
select is((select next_fire_at from q_data.schedule), '2026-12-09 03:00Z'::timestamptz, 'then the next slot as usual');
select pg_temp.reap_at('2026-12-09 03:00:00.5Z');
select is(cardinality(pg_temp.fired('daily')), 3, 'and it fires on time again');

select * from finish();
rollback;
