-- Every form a cron field takes: *, a value, a range, */step, range/step,
-- value/step (to the field's end), lists mixing them, month and weekday names
-- (any case), and 7 as Sunday. Each field's allowed set is what is stored.
begin;
select plan(16);

select is((q.cron_parse('* * * * *')).minutes, array(select generate_series(0, 59)), '* allows every minute');
select is((q.cron_parse('* * * * *')).hours, array(select generate_series(0, 23)), '* allows every hour');
select is((q.cron_parse('* * * * *')).days, array(select generate_series(1, 31)), '* allows every day of the month');
select is((q.cron_parse('* * * * *')).months, array(select generate_series(1, 12)), '* allows every month');
select is((q.cron_parse('* * * * *')).weekdays, array[0, 1, 2, 3, 4, 5, 6], '* allows every weekday (0 = Sunday)');
select is((q.cron_parse('7 * * * *')).minutes, array[7], 'a single value');
select is((q.cron_parse('* 9-17 * * *')).hours, array[9, 10, 11, 12, 13, 14, 15, 16, 17], 'a range is inclusive');
select is((q.cron_parse('*/15 * * * *')).minutes, array[0, 15, 30, 45], '*/15 steps from the field''s start');
select is((q.cron_parse('* 8-18/4 * * *')).hours, array[8, 12, 16], 'a range with a step');
select is((q.cron_parse('5/20 * * * *')).minutes, array[5, 25, 45], 'a value with a step runs to the field''s end');
select is((q.cron_parse('0,30,10-12,50/5 * * * *')).minutes, array[0, 10, 11, 12, 30, 50, 55], 'a list mixes values, ranges and steps (sorted, no repeats)');
select is((q.cron_parse('* * * jan,Mar,DEC *')).months, array[1, 3, 12], 'month names, any case');
select is((q.cron_parse('* * * feb-apr *')).months, array[2, 3, 4], 'a range of month names');
select is((q.cron_parse('* * * * mon-fri')).weekdays, array[1, 2, 3, 4, 5], 'a range of weekday names');
select is((q.cron_parse('* * * * 7')).weekdays, array[0], '7 is Sunday, as 0 is');
select is((q.cron_parse('* * 1,15 * sun,sat')).days, array[1, 15], 'day-of-month lists');

select * from finish();
rollback;
