-- A NULL id or token is a caller bug, not a lost claim: 22004.
begin;
select plan(3);

select q.enqueue('done', '{}') as job_id \gset
select token as job_token from q.claim('done') \gset

select throws_ok(format($$ select q.complete(null, %L) $$, :'job_token'), '22004', null, 'a NULL id is rejected');
select throws_ok(format($$ select q.complete(%s, null) $$, :job_id), '22004', null, 'a NULL token is rejected');
select is((select state::text from q_data.job where id = :job_id), 'r', 'the job is still running');

select * from finish();
rollback;
