-- An empty array is a valid batch of nothing.
begin;
select plan(2);

select is((select count(*)::integer from q.enqueue_many('many', '[]')), 0, 'an empty array returns no ids');
select is((select count(*)::integer from q_data.job), 0, 'an empty array inserts no job');

select * from finish();
rollback;
