-- q.stop_waiting(owner): a worker that stops cleanly ends its waits, so no
-- enqueue sends it a needless wake-up. Another session's waits stay; a bad
-- key is 22023 and writes nothing.
begin;
select plan(4);

select q.session_key() as key \gset
insert into q_data.session (key, pid, backend_start) values (999999, 0, null);
insert into q_data.waiter (queue, session_key) values ('a', :key), ('b', :key), ('a', 999999);

select is(q.stop_waiting(:key), 2, 'two waits ended');
select is(array(select w.session_key from q_data.waiter w), array[999999],
  'the other session''s wait stays');
select is(q.stop_waiting(:key), 0, 'nothing left to end');
select throws_ok('select q.stop_waiting(0)', '22023', null, 'owner 0 is not a key: 22023');

select * from finish();
rollback;
