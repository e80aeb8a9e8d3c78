-- Fencing: a token that is not the job's current claim returns false and
-- leaves the row exactly as it was -- whether it is a made-up token, the
-- token of an earlier claim of the same job, or a job that is only waiting.
begin;
select plan(7);

select q.enqueue('done', '{}') as job_id \gset
select token as old_token from q.claim('done') \gset
select q.fail(:job_id, :'old_token', 'first try failed', retry_in => '0') \g /dev/null
select token as new_token from q.claim('done') \gset
select (select j::text from q_data.job j where j.id = :job_id) as row_before \gset

select is(q.complete(:job_id, gen_random_uuid()), false, 'a made-up token returns false');
select is(q.complete(:job_id, :'old_token'), false, 'the token of an earlier claim returns false');
select is((select j::text from q_data.job j where j.id = :job_id), :'row_before', 'the job row is unchanged');
select is(q.complete(:job_id, :'new_token'), true, 'the current token still completes the job');

select q.enqueue('done', '{}') as waiting_id \gset
select is(q.complete(:waiting_id, :'new_token'), false, 'a waiting (unclaimed) job cannot be completed');
select is((select state::text from q_data.job where id = :waiting_id), 'w', 'it is still waiting');
select is(q.complete(999999999, gen_random_uuid()), false, 'an unknown id returns false');

select * from finish();
rollback;
