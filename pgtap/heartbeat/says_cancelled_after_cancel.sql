-- After q.cancel, the worker's next heartbeat says 'cancelled': stop.
begin;
select plan(3);

select q.enqueue('beat', '{}') as job_id \gset
select token as job_token from q.claim('beat') \gset
select ok(q.cancel(:job_id), '(an admin cancelled the running job)');

select is(q.heartbeat(:job_id, :'job_token'), 'cancelled', 'the heartbeat says ''cancelled''');
select is(q.complete(:job_id, :'job_token'), false, 'and the cancelled claim can no longer complete');

select * from finish();
rollback;
