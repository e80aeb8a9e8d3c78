-- resume undoes pause: the waiting jobs are handed out again.
begin;
select plan(3);

select q.enqueue('resumed', '{}') as job_id \gset
select q.pause('resumed') \g /dev/null
select is((select count(*)::integer from q.claim('resumed')), 0, '(paused: nothing handed out)');

select q.resume('resumed') \g /dev/null
select is((select paused from q_data.queue where name = 'resumed'), false, 'the queue is no longer paused');
select is((select id from q.claim('resumed')), :job_id::bigint, 'its waiting job is handed out again');

select * from finish();
rollback;
