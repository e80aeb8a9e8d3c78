-- q.flow_block_reason(job_id): code and plain words for a job a limit keeps
-- from running; no row for a job no limit holds.
begin;
select plan(4);

select q.configure('why', concurrency => 1, key_concurrency => 1) \g /dev/null
select q.enqueue('why', '{"i": 1}', concurrency_key => 'k') as running_id \gset
select q.enqueue('why', '{"i": 2}', concurrency_key => 'k') as held_id \gset
select q.enqueue('why', '{"i": 3}') as waiting_id \gset
select count(*) from q.claim('why') \g /dev/null

select is((select code from q.flow_block_reason(:held_id)), 'key_concurrency', 'a held job: its key is full');
select matches((select reason from q.flow_block_reason(:held_id)), :'running_id', 'naming the job that holds the slot');
select is((select code from q.flow_block_reason(:waiting_id)), 'concurrency', 'a waiting job: the queue''s slots are taken');
select is((select count(*)::integer from q.flow_block_reason(:running_id)), 0, 'a running job: nothing');

select * from finish();
rollback;
