-- retry_in replaces the computed backoff: 0 makes the job waiting at once,
-- an interval schedules it exactly that long after the failure.
begin;
select plan(4);

select q.configure('override', backoff_base => '1 hour', backoff_max => '1 day') \g /dev/null
select count(*) from q.enqueue_many('override', '[1, 2]') \g /dev/null
select id as now_id, token as now_token from q.claim('override') \gset
select id as later_id, token as later_token from q.claim('override') \gset

select is(q.fail(:now_id, :'now_token', 'again now', retry_in => '0'), 'retry', 'retry_in => 0 retries');
select is((select state::text || ' ' || (run_at = (errors->-1->>'at')::timestamptz)::text from q_data.job where id = :now_id),
  'w true', 'retry_in => 0 makes the job waiting at once, not after the 1 hour backoff');
select is(q.fail(:later_id, :'later_token', 'again in 90 s', retry_in => '90 seconds'), 'retry', 'retry_in => 90 s retries');
select is((select state::text || ' ' || (run_at - (errors->-1->>'at')::timestamptz)::text from q_data.job where id = :later_id),
  's 00:01:30', 'retry_in => 90 s schedules the job exactly 90 seconds after the failure');

select * from finish();
rollback;
