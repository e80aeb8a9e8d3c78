-- While a job with the same queue and dedup_key is waiting, scheduled or
-- running, enqueue returns that job's id and inserts nothing.
begin;
select plan(7);

select q.enqueue('enq', '{"v": 1}', dedup_key => 'k') as first_id \gset

select is(q.enqueue('enq', '{"v": 2}', dedup_key => 'k'), :first_id::bigint, 'a waiting job with the key is returned');
select is((select payload from q_data.job where id = :first_id), '{"v": 1}'::jsonb, 'the waiting job keeps its payload');
select is((select count(*)::integer from q_data.job where dedup_key = 'k'), 1, 'only one job with the key exists');

select id as claimed_id from q.claim('enq', 1) \gset
select is(:claimed_id::bigint, :first_id::bigint, '(the job is now running)');
select is(q.enqueue('enq', '{"v": 3}', dedup_key => 'k'), :first_id::bigint, 'a running job with the key is returned');

select q.enqueue('enq', '{}', run_at => '2999-01-01', dedup_key => 's') as scheduled_id \gset
select is(q.enqueue('enq', '{}', dedup_key => 's'), :scheduled_id::bigint, 'a scheduled job with the key is returned');

select isnt(q.enqueue('other', '{}', dedup_key => 'k'), :first_id::bigint, 'the same key in another queue is another job');

select * from finish();
rollback;
