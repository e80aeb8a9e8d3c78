-- Fencing: failing with a token that is not the current claim returns
-- 'lost' and changes nothing -- no error recorded, no retry, no death.
begin;
select plan(5);

select q.enqueue('fenced', '{}', max_attempts => 1) as job_id \gset
select token as old_token from q.claim('fenced') \gset
select q.release(:job_id, :'old_token') \g /dev/null
select token as new_token from q.claim('fenced') \gset
select (select j::text from q_data.job j where j.id = :job_id) as row_before \gset

select is(q.fail(:job_id, :'old_token', 'late failure'), 'lost', 'a stale token returns ''lost''');
select is(q.fail(:job_id, gen_random_uuid(), 'made up', retryable => false), 'lost', 'a made-up token returns ''lost''');
select is(q.fail(999999999, gen_random_uuid(), 'unknown'), 'lost', 'an unknown id returns ''lost''');
select is((select j::text from q_data.job j where j.id = :job_id), :'row_before', 'the current claim is untouched: no error, no retry, no death');
select is(q.fail(:job_id, :'new_token', 'real failure'), 'dead', 'the current token still fails the job');

select * from finish();
rollback;
