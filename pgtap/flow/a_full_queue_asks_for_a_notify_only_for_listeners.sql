-- NOTIFY serializes committing transactions, so a freed slot notifies only
-- when a listening claimer (pgq.listening = on) found the queue full: the
-- claim sets q_data.queue.flow_waiting, the next job to free a slot clears it.
begin;
select plan(4);

select q.configure('nfy', concurrency => 1) \g /dev/null
select q.enqueue_many('nfy', '[1, 2, 3]') \g /dev/null
select id as first_id, token as first_token from q.claim('nfy') \gset

select count(*) from q.claim('nfy') \g /dev/null
select ok(not (select flow_waiting from q_data.queue where name = 'nfy'), 'a session that does not listen asks for nothing');

set local pgq.listening = on;
select count(*) from q.claim('nfy') \g /dev/null
select ok((select flow_waiting from q_data.queue where name = 'nfy'), 'a listening claimer that found every slot taken asks');

select q.complete(:first_id, :'first_token') \g /dev/null
select ok(not (select flow_waiting from q_data.queue where name = 'nfy'), 'the job that freed the slot answered (and notified)');
select is((select count(*)::integer from q.claim('nfy')), 1, 'the freed slot is claimable');

select * from finish();
rollback;
