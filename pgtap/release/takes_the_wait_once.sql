-- q.release (and q.fail with a retry due now, q.reap) wake workers through
-- q.notify_queues: one-shot, as the enqueue trigger (0009): the first takes
-- the queue's waits, the next finds none.
begin;
select plan(2);

select q.session_key() as key \gset
select q.enqueue('a', '{}');
select id, token from q.claim('a', 1) \gset
insert into q_data.waiter (queue, session_key) values ('a', :key);

select q.release(:id, :'token');
select is((select count(*)::int from q_data.waiter), 0, 'the release took the wait for a');

insert into q_data.waiter (queue, session_key) values ('b', :key);
select id, token from q.claim('a', 1) \gset
select q.release(:id, :'token');
select is(array(select w.queue from q_data.waiter w), array['b'],
  'a release into a leaves the wait for b');

select * from finish();
rollback;
