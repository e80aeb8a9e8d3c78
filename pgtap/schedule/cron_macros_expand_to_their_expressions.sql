-- @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly are
-- the classic expressions, and fire where those do.
begin;
select plan(8);
set local timezone = 'UTC';

select is(q.cron_parse('@yearly'), q.cron_parse('0 0 1 1 *'), '@yearly is 0 0 1 1 *');
select is(q.cron_parse('@annually'), q.cron_parse('0 0 1 1 *'), '@annually is 0 0 1 1 *');
select is(q.cron_parse('@monthly'), q.cron_parse('0 0 1 * *'), '@monthly is 0 0 1 * *');
select is(q.cron_parse('@weekly'), q.cron_parse('0 0 * * 0'), '@weekly is 0 0 * * 0 (Sunday midnight)');
select is(q.cron_parse('@daily'), q.cron_parse('0 0 * * *'), '@daily is 0 0 * * *');
select is(q.cron_parse('@midnight'), q.cron_parse('0 0 * * *'), '@midnight is 0 0 * * *');
select is(q.cron_parse(' @HOURLY '), q.cron_parse('0 * * * *'), '@hourly is 0 * * * * (case and spaces do not matter)');
select is(q.cron_next(q.cron_parse('@weekly'), 'UTC', '2026-12-01 10:00Z'), '2026-12-06 00:00Z'::timestamptz,
  '@weekly next fires on the coming Sunday at midnight');

select * from finish();
rollback;
