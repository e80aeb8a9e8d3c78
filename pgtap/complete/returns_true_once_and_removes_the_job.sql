-- Completing the current claim returns true and the job leaves the hot
-- table; completing it again returns false.
begin;
select plan(4);

select q.enqueue('done', '{}') as job_id \gset
select id as claimed_id, token as claimed_token from q.claim('done') \gset

select is(q.complete(:claimed_id, :'claimed_token'), true, 'completing the current claim returns true');
select is((select count(*)::integer from q_data.job where id = :job_id), 0, 'the completed job has left q_data.job');
select is((select count(*)::integer from q_data.job_history where id = :job_id), 0, 'by default it is not kept in history');
select is(q.complete(:claimed_id, :'claimed_token'), false, 'completing it a second time returns false');

select * from finish();
rollback;
