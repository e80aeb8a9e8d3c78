-- A job held while another transaction was making its key's slot (which then
-- rolled back), or while the key's last slot was freed and swept before the
-- job's enqueue committed, has no finishing job to pass it a slot: its key is
-- listed in q_data.key_recheck with it, and the reaper's sweep admits it.
begin;
select plan(5);

select q.configure('re', key_concurrency => 1) \g /dev/null
select q.enqueue('re', '{"i": 1}', concurrency_key => 'k') as first_id \gset
select q.enqueue('re', '{"i": 2}', concurrency_key => 'k') as held_id \gset
select q.enqueue('re', '{"i": 3}', concurrency_key => 'k') \g /dev/null
select is((select count(*)::integer from q_data.key_recheck where key = 'k'), 1, 'the held jobs list their key once per transaction');

-- The other transaction's row never committed: made by hand, the first job and its slot vanish.
set local session_replication_role = replica;
delete from q_data.job where id = :first_id;
delete from q_data.key_slot where key = 'k';
set local session_replication_role = origin;

select q.reap() \g /dev/null
select is((select state::text from q_data.job where id = :held_id), 'w', 'the sweep admitted the first held job');
select is((select job_id from q_data.key_slot where key = 'k'), :held_id::bigint, 'on a slot it made');
select is((select count(*)::integer from q_data.job where concurrency_key = 'k' and state = 'h'), 1, 'K = 1: the other stays held');
select is((select count(*)::integer from q_data.key_recheck), 0, 'and the key is off the list');

select * from finish();
rollback;
