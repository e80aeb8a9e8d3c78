-- When a queue has fewer waiting jobs than asked for, claim promotes due
-- scheduled jobs (delays, retries) and claims them in the same call, so they
-- run on time even between reaper runs. Jobs not yet due stay scheduled.
-- "Time passes" by moving a scheduled job's run_at into the past.
begin;
select plan(5);

select q.enqueue('claim', '{"n": "waiting"}') as waiting_id \gset
select q.enqueue('claim', '{"n": "due"}', run_at => clock_timestamp() + interval '1 hour') as due_id \gset
select q.enqueue('claim', '{"n": "later"}', run_at => clock_timestamp() + interval '1 hour') as later_id \gset
update q_data.job set run_at = now() - interval '1 minute' where id = :due_id;

select results_eq($$ select id from q.claim('claim', 1) $$, array[:waiting_id::bigint],
  'with enough waiting jobs, only waiting jobs are claimed');
select is((select state::text from q_data.job where id = :due_id), 's', 'the due job was not needed, so it is still scheduled');

select results_eq($$ select id from q.claim('claim', 5) $$, array[:due_id::bigint],
  'running short, claim promotes the due scheduled job and claims it');
select is((select state::text from q_data.job where id = :due_id), 'r', 'the due job is running');
select is((select state::text from q_data.job where id = :later_id), 's', 'the job not yet due stays scheduled');

select * from finish();
rollback;
