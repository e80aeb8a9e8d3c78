-- q.reap deletes idle queues (0008, design.md#queue-names-cost-nothing-when-idle): default settings, no
-- job, no history, no schedule, no outcome still in q_data.throughput (a
-- day), and over an hour old. Anything else stays. Ages are set by moving
-- created_at back. (The race with an uncommitted enqueue needs two sessions:
-- tests/core/test_idle_queues.py.)
begin;
select plan(7);

select q.enqueue('idle-old', '{}') as j \gset
select q.purge('idle-old') \g /dev/null
select q.enqueue('idle-young', '{}') \g /dev/null
select q.purge('idle-young') \g /dev/null
select q.enqueue('has-job', '{}') \g /dev/null
select q.enqueue('has-history', '{}') as cancelled \gset
select q.cancel(:cancelled) \g /dev/null
select q.configure('has-settings', retention => interval '1 day') \g /dev/null
select q.pause('is-paused') \g /dev/null
select q.enqueue('had-outcome', '{}') \g /dev/null
select q.complete(id, token) from q.claim('had-outcome') \g /dev/null
update q_data.queue set created_at = now() - interval '2 hours' where name <> 'idle-young';

select q.reap() \g /dev/null
select results_eq($$ select name from q_data.queue order by name $$,
  $$ values ('had-outcome'), ('has-history'), ('has-job'), ('has-settings'), ('idle-young'), ('is-paused') $$,
  'only the old idle queue went; an hour-young one, and ones with a job, history, settings or an outcome stay');
select q.reap() \g /dev/null
select ok(exists (select from q_data.queue where name = 'had-outcome'),
  'an outcome rolled up into q_data.throughput keeps its queue for the day the bucket is kept');
delete from q_data.throughput;
select q.reap() \g /dev/null
select ok(not exists (select from q_data.queue where name = 'had-outcome')
          and not exists (select from q_data.throughput_total t where not exists (select from q_data.queue qq where qq.id = t.queue_id)),
  'with its last bucket gone it is deleted, with its running totals');
select ok(exists (select from q_data.queue where name = 'has-history'), 'history keeps a queue');

select q.enqueue('idle-old', '{}') as again \gset
select ok((select queue_id from q_data.job where id = :again) = (select id from q_data.queue where name = 'idle-old'),
  'a later enqueue makes the queue again');

-- Bounded per call: 250 idle queues, max_jobs 100 -> at most 100 rows looked at per reap.
insert into q_data.queue (name, created_at) select 'bulk-' || g, now() - interval '2 hours' from generate_series(1, 250) g;
select q.reap(100) \g /dev/null
select cmp_ok((select count(*)::integer from q_data.queue where name like 'bulk-%'), '>=', 150,
  'one reap looks at no more than 100 queue rows');
select q.reap(100) \g /dev/null
select q.reap(100) \g /dev/null
select q.reap(100) \g /dev/null
select q.reap(100) \g /dev/null
select is((select count(*)::integer from q_data.queue where name like 'bulk-%'), 0,
  'the next reaps go on from there and wrap around: all of them go');

select * from finish();
rollback;
