-- A well-formed queue name nobody has used yet is an empty queue: no rows,
-- no error, and claiming does not create it.
begin;
select plan(2);

select is((select count(*)::integer from q.claim('never-used', 10)), 0, 'an unknown queue returns no job');
select is((select count(*)::integer from q_data.queue where name = 'never-used'), 0, 'claiming does not create the queue');

select * from finish();
rollback;
