-- oldest_waiting is how long the oldest due job has waited, and NULL when
-- no job is due. In 0002 a queue with only scheduled jobs said 0 s
-- (greatest() skips a NULL).
begin;
select plan(3);

select q.enqueue('later', '{}', run_at => now() + interval '1 hour') \g /dev/null
select q.configure('empty') \g /dev/null
select q.enqueue('due', '{}', run_at => now() - interval '1 minute') \g /dev/null

select is((select oldest_waiting from q.stats() where queue = 'later'), null, 'only scheduled jobs: NULL');
select is((select oldest_waiting from q.stats() where queue = 'empty'), null, 'no jobs at all: NULL');
select cmp_ok((select oldest_waiting from q.stats() where queue = 'due'), '>=', interval '1 minute',
  'a due job: how long it has waited');

select * from finish();
rollback;
