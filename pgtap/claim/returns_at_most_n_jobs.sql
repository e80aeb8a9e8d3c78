-- claim returns up to n jobs: n when there are enough, what is left when
-- there are fewer, none when the queue is empty; one by default.
begin;
select plan(6);

select count(*) from q.enqueue_many('claim', '[1, 2, 3, 4, 5, 6]') \g /dev/null

select is((select count(*)::integer from q.claim('claim')), 1, 'without n, one job is claimed');
select is((select count(*)::integer from q.claim('claim', 3)), 3, 'n = 3 claims three jobs');
select is((select count(*)::integer from q.claim('claim', 10)), 2, 'n = 10 claims the two that are left');
select is((select count(*)::integer from q.claim('claim', 10)), 0, 'an empty queue returns no job');
select is((select count(*)::integer from q_data.job where state = 'r'), 6, 'every claimed job is running');
select is((select count(distinct id)::integer from q_data.job where state = 'r'), 6, 'no job was handed out twice');

select * from finish();
rollback;
