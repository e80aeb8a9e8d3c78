-- When a claim was reaped and the job claimed again, the old claim's
-- heartbeat says 'lost' and does not touch the new claim's lease.
begin;
select plan(4);

select q.enqueue('beat', '{}') as job_id \gset
select token as old_token from q.claim('beat', lease => '1 millisecond', owner => 0) \gset
select pg_sleep(0.05) \g /dev/null
select is(q.reap(), 1, '(the first claim''s lease ran out and it was reaped)');
select token as new_token, lease_until as new_until from q.claim('beat', lease => '1 minute') \gset

select is(q.heartbeat(:job_id, :'old_token', lease => '1 day'), 'lost', 'the old claim''s heartbeat says ''lost''');
select is((select lease_until from q_data.job where id = :job_id), :'new_until'::timestamptz, 'the new claim''s lease is untouched');
select is(q.heartbeat(:job_id, gen_random_uuid()), 'lost', 'a made-up token says ''lost''');

select * from finish();
rollback;
