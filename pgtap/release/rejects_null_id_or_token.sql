-- A NULL id or token is rejected (22004) and releases nothing.
begin;
select plan(3);

select q.enqueue('rel', '{}') as job_id \gset
select token as job_token from q.claim('rel') \gset

select throws_ok(format($$ select q.release(null, %L) $$, :'job_token'), '22004', null, 'a NULL id is rejected');
select throws_ok(format($$ select q.release(%s, null) $$, :job_id), '22004', null, 'a NULL token is rejected');
select is((select state::text from q_data.job where id = :job_id), 'r', 'the job is still running');

select * from finish();
rollback;
