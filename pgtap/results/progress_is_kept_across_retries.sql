-- q.heartbeat(progress => ...) stores progress in the same update that
-- extends the lease; it stays when the attempt fails and the job waits
-- again, so the next attempt (q.result) and q.explain see it. A stale
-- token's progress is not written; a heartbeat without progress keeps it.
begin;
select plan(7);

select q.enqueue('prog', '{}') as job_id \gset
select token as first_token from q.claim('prog') \gset
select is(q.heartbeat(:job_id, :'first_token', progress => '{"step": 3}'), 'running', 'a heartbeat with progress');
select is(q.heartbeat(:job_id, :'first_token'), 'running', 'then one without');
select is((select s.progress from q.result(:job_id) s), '{"step": 3}'::jsonb, 'the progress stays');
select is((select e.detail -> 'progress' from q.explain(:job_id) e limit 1), '{"step": 3}'::jsonb, 'q.explain shows it');

select q.fail(:job_id, :'first_token', 'boom', retry_in => '0') \g /dev/null
select is((select s.progress from q.result(:job_id) s), '{"step": 3}'::jsonb, 'it is kept after a failed attempt');
select token as second_token from q.claim('prog') \gset
select is(q.heartbeat(:job_id, :'first_token', progress => '{"step": 99}'), 'lost', 'the old claim''s heartbeat is lost');
select is((select s.progress from q.result(:job_id) s), '{"step": 3}'::jsonb, 'and did not write its progress');

select * from finish();
rollback;
