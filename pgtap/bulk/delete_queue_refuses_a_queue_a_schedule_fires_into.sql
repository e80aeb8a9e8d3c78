-- A schedule names its queue: q.delete_queue of that queue raised a raw
-- foreign-key violation (23503) in 0007. It is refused with 55000 naming the
-- schedules, and nothing is deleted.
begin;
select plan(3);

select q.schedule('nightly', '0 3 * * *', 'reports') \g /dev/null
select q.enqueue('reports', '1') \g /dev/null
select q.purge('reports') \g /dev/null

select throws_ok($$ select q.delete_queue('reports') $$, '55000',
  'queue ''reports'' is the target of schedule(s) ''nightly''',
  'a queue a schedule fires into is refused (55000), naming the schedule');
select is((select count(*)::integer from q_data.queue where name = 'reports'), 1, 'the queue is still there');
select q.unschedule('nightly') \g /dev/null
select is((select history_deleted from q.delete_queue('reports')), 0, 'once unscheduled it can go');

select * from finish();
rollback;
