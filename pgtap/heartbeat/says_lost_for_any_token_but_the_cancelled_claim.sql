-- q.heartbeat answers 'cancelled' only to the claim that was cancelled, and
-- 'lost' to any other token. In 0002 a random token got 'cancelled' for any
-- cancelled id, so a worker could enumerate which jobs were cancelled.
begin;
select plan(4);

select q.enqueue('hb', '{}') as running_id \gset
select q.enqueue('hb', '{}', run_at => now() + interval '1 hour') as waiting_id \gset
select id as claimed_id, token as claimed_token from q.claim('hb', 1) \gset
select q.cancel(:running_id) \g /dev/null
select q.cancel(:waiting_id) \g /dev/null

select is(q.heartbeat(:running_id, :'claimed_token'), 'cancelled', 'the cancelled claim hears cancelled');
select is(q.heartbeat(:running_id, gen_random_uuid()), 'lost', 'any other token for that id hears lost');
select is(q.heartbeat(:waiting_id, gen_random_uuid()), 'lost', 'a job cancelled while waiting: lost for any token');
select is(q.heartbeat(:waiting_id + 1000, gen_random_uuid()), 'lost', 'an unknown id: lost');

select * from finish();
rollback;
