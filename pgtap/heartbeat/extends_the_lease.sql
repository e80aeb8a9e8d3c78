-- heartbeat pushes lease_until to now + lease (the given one, else the
-- queue's) and says 'running'.
begin;
select plan(4);

select q.configure('beat', lease => '2 minutes') \g /dev/null
select q.enqueue('beat', '{}') as job_id \gset
select token as job_token, lease_until as first_until from q.claim('beat', lease => '10 seconds') \gset

select clock_timestamp() as t0 \gset
select is(q.heartbeat(:job_id, :'job_token', lease => '1 hour'), 'running', 'a heartbeat on the current claim says ''running''');
select ok((select lease_until between :'t0'::timestamptz + interval '1 hour' and clock_timestamp() + interval '1 hour' from q_data.job where id = :job_id),
  'the lease now ends an hour from the heartbeat');

select clock_timestamp() as t0 \gset
select q.heartbeat(:job_id, :'job_token') \g /dev/null
select ok((select lease_until between :'t0'::timestamptz + interval '2 minutes' and clock_timestamp() + interval '2 minutes' from q_data.job where id = :job_id),
  'without a lease the queue''s lease (2 minutes) is used');
select is((select state::text from q_data.job where id = :job_id), 'r', 'the job is still running');

select * from finish();
rollback;
