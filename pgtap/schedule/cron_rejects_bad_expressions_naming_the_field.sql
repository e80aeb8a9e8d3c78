-- A bad cron expression is refused when the schedule is written, with 22023
-- and a message that names the field and the bad part; nothing is written.
begin;
select plan(20);
\ir ../_schedule_helpers.psql
select pg_temp.schedule_state() as before \gset

select throws_ok($$ select q.schedule('bad', '61 * * * *', 'q1') $$, '22023',
  'cron expression "61 * * * *": minute field "61": 61 is out of range 0-59', 'minute out of range');
select throws_ok($$ select q.schedule('bad', '* 24 * * *', 'q1') $$, '22023',
  'cron expression "* 24 * * *": hour field "24": 24 is out of range 0-23', 'hour out of range');
select throws_ok($$ select q.schedule('bad', '* * 0 * *', 'q1') $$, '22023',
  'cron expression "* * 0 * *": day-of-month field "0": 0 is out of range 1-31', 'day of month out of range');
select throws_ok($$ select q.schedule('bad', '* * * 13 *', 'q1') $$, '22023',
  'cron expression "* * * 13 *": month field "13": 13 is out of range 1-12', 'month out of range');
select throws_ok($$ select q.schedule('bad', '* * * * 8', 'q1') $$, '22023',
  'cron expression "* * * * 8": day-of-week field "8": 8 is out of range 0-7', 'weekday out of range');
select throws_ok($$ select q.schedule('bad', '* * * foo *', 'q1') $$, '22023',
  'cron expression "* * * foo *": month field "foo": "foo" is not a number or a name (jan, feb, mar, apr, may, jun, jul, aug, sep, oct, nov, dec)',
  'an unknown month name');
select throws_ok($$ select q.schedule('bad', '* * * * funday', 'q1') $$, '22023',
  'cron expression "* * * * funday": day-of-week field "funday": "funday" is not a number or a name (sun, mon, tue, wed, thu, fri, sat)',
  'an unknown weekday name');
select throws_ok($$ select q.schedule('bad', 'x * * * *', 'q1') $$, '22023',
  'cron expression "x * * * *": minute field "x": "x" is not a number', 'a name where the field has none');
select throws_ok($$ select q.schedule('bad', '30-10 * * * *', 'q1') $$, '22023',
  'cron expression "30-10 * * * *": minute field "30-10": range 30-10 runs backwards', 'a backwards range');
select throws_ok($$ select q.schedule('bad', '*/0 * * * *', 'q1') $$, '22023',
  'cron expression "*/0 * * * *": minute field "*/0": step 0 must be between 1 and 60', 'a zero step');
select throws_ok($$ select q.schedule('bad', '* */25 * * *', 'q1') $$, '22023',
  'cron expression "* */25 * * *": hour field "*/25": step 25 must be between 1 and 24', 'a step wider than the field');
select throws_ok($$ select q.schedule('bad', '1,,2 * * * *', 'q1') $$, '22023',
  'cron expression "1,,2 * * * *": minute field "1,,2": "" is not a value, range (a-b), step (*/n, a-b/n) or list (a,b)',
  'an empty list item');
select throws_ok($$ select q.schedule('bad', '*-5 * * * *', 'q1') $$, '22023',
  'cron expression "*-5 * * * *": minute field "*-5": "*-5" is not a value, range (a-b), step (*/n, a-b/n) or list (a,b)',
  'a range starting at *');
select throws_ok($$ select q.schedule('bad', '* * * *', 'q1') $$, '22023',
  'cron expression "* * * *": expected 5 fields (minute hour day-of-month month day-of-week), got 4', 'four fields');
select throws_ok($$ select q.schedule('bad', '0 * * * * *', 'q1') $$, '22023',
  'cron expression "0 * * * * *": expected 5 fields (minute hour day-of-month month day-of-week), got 6',
  'six fields (no seconds field)');
select throws_ok($$ select q.schedule('bad', '', 'q1') $$, '22023',
  'cron expression "": expected 5 fields (minute hour day-of-month month day-of-week), got 0', 'an empty expression');
select throws_ok($$ select q.schedule('bad', '@reboot', 'q1') $$, '22023',
  'cron expression "@reboot": unknown macro; use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly',
  'an unknown macro');
select throws_ok($$ select q.schedule('bad', '0 0 30 2 *', 'q1') $$, '22023',
  'cron expression "0 0 30 2 *" never fires (no day matches it, e.g. February 30)', 'a day that never comes');
select throws_ok($$ select q.schedule('bad', '99999999999 * * * *', 'q1') $$, '22023', null,
  'a huge number is refused as out of range, not an overflow');

select is(pg_temp.schedule_state(), :'before', 'the refused schedules wrote nothing');

select * from finish();
rollback;
