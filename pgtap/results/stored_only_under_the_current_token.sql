-- q.complete(id, token, result) stores the result in the completing
-- transaction, and only when (id, token) is the job's current claim: a
-- made-up token or a waiting job's id stores nothing.
begin;
select plan(7);

select q.enqueue('res', '{}') as job_id \gset
select token as job_token from q.claim('res') \gset

select is(q.complete(:job_id, gen_random_uuid(), '{"n": 1}'), false, 'a made-up token returns false');
select is((select count(*)::integer from q_data.job_result r where r.id = :job_id), 0, 'and stores no result');
select is((select s.state from q.result(:job_id) s), 'running', 'q.result still says running');

select is(q.complete(:job_id, :'job_token', '{"n": 2}'), true, 'the current token completes the job');
select is((select s.result from q.result(:job_id) s), '{"n": 2}'::jsonb, 'q.result returns its result');
select is((select s.state from q.result(:job_id) s), 'completed', 'and says completed (the queue keeps no history)');

-- Without a result and without anybody awaiting it, nothing more is written.
select q.enqueue('res', '{}') as plain_id \gset
select token as plain_token from q.claim('res') \gset
select q.complete(:plain_id, :'plain_token') \g /dev/null
select is((select count(*)::integer from q_data.job_result r where r.id = :plain_id), 0,
  'a complete without a result writes no result row');

select * from finish();
rollback;
