-- attempt counts claims: 1 on the first, one more on each claim after a
-- failure; claim returns the new value.
begin;
select plan(4);

select q.enqueue('claim', '{}') as job_id \gset
select attempt as first_attempt, token as first_token from q.claim('claim') \gset
select is(:first_attempt, 1, 'the first claim is attempt 1');
select is((select attempt::integer from q_data.job where id = :job_id), 1, 'the stored attempt is 1');

select q.fail(:job_id, :'first_token', 'boom', retry_in => '0') \g /dev/null
select attempt as second_attempt from q.claim('claim') \gset
select is(:second_attempt, 2, 'the claim after a failure is attempt 2');
select is((select attempt::integer from q_data.job where id = :job_id), 2, 'the stored attempt is 2');

select * from finish();
rollback;
