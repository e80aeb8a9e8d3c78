-- Pausing a queue nobody has used yet creates it paused, so its first jobs
-- wait until it is resumed. (Other queues exist, as they would.)
begin;
select plan(4);

select q.enqueue('existing', '{}') \g /dev/null
select q.enqueue('another', '{}') \g /dev/null
select q.pause('later') \g /dev/null
select is((select paused from q_data.queue where name = 'later'), true, 'the queue exists and is paused');
select q.enqueue('later', '{}') \g /dev/null
select is((select count(*)::integer from q.claim('later')), 0, 'its first job is not handed out');
select is((select paused from q_data.queue where name = 'later'), true, 'enqueueing did not unpause it');
select is((select count(*)::integer from q_data.queue where paused), 1, 'the other queues were not paused');

select * from finish();
rollback;
