-- A claim lost to a crash spends the crash budget, not max_attempts: after
-- one crash and one failure, a job with two attempts is retried, not dead.
begin;
select plan(3);

select q.enqueue('crashy', '{}', max_attempts => 2) as job_id \gset
select q.claim('crashy', lease => '1 millisecond', owner => 0) \g /dev/null
select pg_sleep(0.05) \g /dev/null
select is(q.reap(), 1, '(the first claim''s lease ran out and it was reaped)');

select attempt as attempt_no, token as t from q.claim('crashy') \gset
select is(:attempt_no, 2, '(the second claim is attempt 2)');
select is(q.fail(:job_id, :'t', 'first real failure', retry_in => '0'), 'retry',
  'the first real failure retries: the crash did not spend an attempt');

select * from finish();
rollback;
