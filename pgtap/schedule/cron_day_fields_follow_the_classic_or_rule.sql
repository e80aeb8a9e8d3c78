-- Classic cron's day rule: when both day-of-month and day-of-week are
-- restricted, a day matches if EITHER does; when one of them starts with *,
-- a day must match both (so * alone means "the other field decides").
begin;
select plan(4);
set local timezone = 'UTC';

-- 2026-11-13 is a Friday; 2026-11-06 and -20 are Fridays too.
select is(
  array(select q.cron_next(q.cron_parse('0 0 13 * 5'), 'UTC', t)
          from unnest(array['2026-11-01Z', '2026-11-06 00:00Z', '2026-11-12 00:00Z', '2026-11-13 00:00Z']::timestamptz[]) t),
  array['2026-11-06 00:00Z', '2026-11-13 00:00Z', '2026-11-13 00:00Z', '2026-11-20 00:00Z']::timestamptz[],
  '0 0 13 * 5 fires on the 13th and on every Friday (OR)');
select is(q.cron_next(q.cron_parse('0 0 * * 1'), 'UTC', '2026-12-01Z'), '2026-12-07 00:00Z'::timestamptz,
  'day-of-month * leaves the weekday to decide (next Monday)');
select is(q.cron_next(q.cron_parse('0 0 15 * *'), 'UTC', '2026-12-01Z'), '2026-12-15 00:00Z'::timestamptz,
  'day-of-week * leaves the day of the month to decide');
-- */2 starts with *: both must match, an odd day that is a Monday.
select is(q.cron_next(q.cron_parse('0 0 */2 * 1'), 'UTC', '2026-12-01Z'), '2026-12-07 00:00Z'::timestamptz,
  'a day field starting with * (*/2) makes both fields apply (the 7th is odd and a Monday)');

select * from finish();
rollback;
