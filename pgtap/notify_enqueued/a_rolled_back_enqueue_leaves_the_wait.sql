-- The wait an enqueue takes goes with the enqueue's transaction: if the
-- producer rolls back, the wait is back and the next enqueue sends the
-- wake-up. A wake-up is never lost to a rollback.
begin;
select plan(2);

select q.session_key() as key \gset
insert into q_data.waiter (queue, session_key) values ('a', :key);

savepoint producer;
select q.enqueue('a', '{}');
select is((select count(*)::int from q_data.waiter), 0, 'the enqueue took the wait');
rollback to savepoint producer;

select is(array(select w.queue from q_data.waiter w), array['a'],
  'rolled back with the producer: the wait is back for the next enqueue');

select * from finish();
rollback;
