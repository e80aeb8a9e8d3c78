-- The backoff delay never exceeds backoff_max, however many failures: a job
-- allowed many attempts keeps retrying within the cap instead of q.fail
-- raising "interval out of range" once base * 2^(failures-1) outgrows an
-- interval (failure 41 with a 1 minute base; failure 33 with 1 hour).
begin;
select plan(6);

select q.configure('capped', backoff_base => '10 seconds', backoff_max => '15 seconds') \g /dev/null
select q.enqueue('capped', '{}') as capped_id \gset
select token as capped_token from q.claim('capped') \gset
select q.fail(:capped_id, :'capped_token', 'one', retry_in => '0') \g /dev/null
select token as capped_token from q.claim('capped') \gset
select q.fail(:capped_id, :'capped_token', 'two', retry_in => '0') \g /dev/null
select token as capped_token from q.claim('capped') \gset
select is(q.fail(:capped_id, :'capped_token', 'three'), 'retry', '(3rd failure of a 10 s base, 15 s cap)');
select ok((select run_at - (errors->-1->>'at')::timestamptz between interval '7.5 seconds' and interval '15 seconds'
             from q_data.job where id = :capped_id),
  'the delay is the 15 s cap (with jitter), not 40 s');

-- Many failures: the first 40 fail with retry_in => 0 (no backoff), the
-- rest use the backoff.
create function pg_temp.fail_times(queue text, job_id bigint, times integer) returns text language plpgsql as $$
declare
  v_token uuid;
  v_status text;
begin
  for i in 1 .. times loop
    update q_data.job set run_at = now() - interval '1 minute' where id = job_id and state = 's';
    select c.token into strict v_token from q.claim(queue) c;
    v_status := q.fail(job_id, v_token, 'failure ' || i, retry_in => case when i <= 40 then interval '0' end);
  end loop;
  return v_status;
end
$$;

select q.configure('minutes', backoff_base => '1 minute', backoff_max => '1 hour', max_attempts => 1000) \g /dev/null
select q.enqueue('minutes', '{}') as minutes_id \gset
select lives_ok(format($$ select pg_temp.fail_times('minutes', %s, 45) $$, :minutes_id),
  'q.fail keeps working through failures 41 to 45 of a 1 minute base');
select ok((select state = 's' and jsonb_array_length(errors) = 20  -- the newest 20 are kept
                  and run_at - (errors->-1->>'at')::timestamptz between interval '30 minutes' and interval '1 hour'
             from q_data.job where id = :minutes_id),
  'after 45 failures the job is scheduled again within the 1 hour cap');

select q.configure('hours', backoff_base => '1 hour', backoff_max => '1 day', max_attempts => 1000) \g /dev/null
select q.enqueue('hours', '{}') as hours_id \gset
select lives_ok(format($$ select pg_temp.fail_times('hours', %s, 45) $$, :hours_id),
  'q.fail keeps working through failures 41 to 45 of a 1 hour base');
select ok((select state = 's' and jsonb_array_length(errors) = 20  -- the newest 20 are kept
                  and run_at - (errors->-1->>'at')::timestamptz between interval '12 hours' and interval '1 day'
             from q_data.job where id = :hours_id),
  'after 45 failures the job is scheduled again within the 1 day cap');

select * from finish();
rollback;
