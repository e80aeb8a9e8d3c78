-- "0 12 29 2 *" fires on February 29 only: walking across the end of
-- February 2028 it fires once, and its next slot is four years on (2032).
-- A monthly last-days schedule skips the days a month does not have.
begin;
select plan(4);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01Z';
select next_fire_at as next from q.schedule('leap', '0 12 29 2 *', 'leap') \gset
reset pgq.schedule_now;
select is(:'next'::timestamptz, '2028-02-29 12:00Z'::timestamptz, 'the first slot is the next leap day');
update q_data.schedule set next_fire_at = '2028-02-29 12:00Z';
select pg_temp.walk('2028-02-28 00:00Z', '2028-03-01 23:00Z', '1 hour');
select is(pg_temp.fired('leap'), array['2028-02-29T12:00:00Z'], 'it fires once on 2028-02-29');
select is((select next_fire_at from q_data.schedule), '2032-02-29 12:00Z'::timestamptz, 'and next on 2032-02-29');
select is(array(select q.next_slot(q.cron_parse('0 0 31 * *'), null, 'UTC', t)
                  from unnest(array['2027-01-31 12:00Z', '2027-03-31 12:00Z']::timestamptz[]) t),
  array['2027-03-31 00:00Z', '2027-05-31 00:00Z']::timestamptz[],
  'day 31 skips the months without one (February, April)');

select * from finish();
rollback;
