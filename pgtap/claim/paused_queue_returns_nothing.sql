-- A paused queue hands out nothing; its jobs keep waiting.
begin;
select plan(3);

select q.enqueue('claim', '{}') as job_id \gset
select q.pause('claim') \g /dev/null

select is((select count(*)::integer from q.claim('claim', 10)), 0, 'a paused queue returns no job');
select is((select state::text from q_data.job where id = :job_id), 'w', 'the job is still waiting');
select is((select attempt::integer from q_data.job where id = :job_id), 0, 'and was not attempted');

select * from finish();
rollback;
