-- Once the job holding a dedup_key has finished (completed, dead or
-- cancelled), the same key enqueues a new job.
begin;
select plan(4);

select q.enqueue('enq', '{}', dedup_key => 'k') as first_id \gset
select id as claimed_id, token as claimed_token from q.claim('enq', 1) \gset
select ok(q.complete(:claimed_id, :'claimed_token'), '(the first job completed)');
select q.enqueue('enq', '{}', dedup_key => 'k') as second_id \gset
select isnt(:second_id::bigint, :first_id::bigint, 'after completion the key enqueues a new job');

select ok(q.cancel(:second_id), '(the second job was cancelled)');
select isnt(q.enqueue('enq', '{}', dedup_key => 'k'), :second_id::bigint, 'after cancellation the key enqueues a new job');

select * from finish();
rollback;
