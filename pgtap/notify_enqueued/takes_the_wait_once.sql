-- One-shot wake-ups (0009): the enqueue that finds a queue's waits takes
-- them (deletes the q_data.waiter rows in its own transaction) and sends the
-- one NOTIFY; the enqueues after it find nothing to take and send nothing
-- until a worker records a new wait. Waits for other queues stay. (The
-- NOTIFY itself, delivered only at commit, is for pytest:
-- tests/core/test_notify_on_demand.py.)
begin;
select plan(4);

select q.session_key() as key \gset
insert into q_data.waiter (queue, session_key) values ('a', :key), ('b', :key);

select q.enqueue('a', '{}');
select is(array(select w.queue from q_data.waiter w order by 1), array['b'],
  'the enqueue into a took the wait for a, not the one for b');

select q.enqueue('a', '{}');
select is(array(select w.queue from q_data.waiter w order by 1), array['b'],
  'a second enqueue into a finds no wait to take');

select q.enqueue('b', '{}', run_at => now() + interval '1 hour');
select is(array(select w.queue from q_data.waiter w order by 1), array['b'],
  'a scheduled job wakes nobody: the wait stays');

set local pgq.notify = 'always';
select q.enqueue('b', '{}');
select is(array(select w.queue from q_data.waiter w order by 1), array['b'],
  'with pgq.notify = always the enqueue notifies without taking the wait');

select * from finish();
rollback;
