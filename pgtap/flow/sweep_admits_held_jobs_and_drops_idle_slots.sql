-- The reaper's sweep passes a free key slot to a held job of its key (the
-- race with an enqueue that committed after the slot was freed) and deletes
-- free slots of keys with nothing held.
begin;
select plan(3);

select (q.configure('sweep', key_concurrency => 1)).key_concurrency as k \gset
select q.enqueue('sweep', '{"i": 1}', concurrency_key => 'busy') \g /dev/null
select q.enqueue('sweep', '{"i": 2}', concurrency_key => 'busy') as held_id \gset
select q.enqueue('sweep', '{"i": 3}', concurrency_key => 'idle') as idle_id \gset
select q.cancel(:idle_id) \g /dev/null
-- The race's outcome, made by hand: the slot is free, the job still held.
update q_data.key_slot set job_id = null where key = 'busy';
update q_data.job set key_slot = null where concurrency_key = 'busy';
delete from q_data.job where concurrency_key = 'busy' and state <> 'h';

select q.reap() \g /dev/null
select is((select state::text from q_data.job where id = :held_id), 'w', 'the held job got the free slot');
select is((select job_id from q_data.key_slot where key = 'busy'), :held_id::bigint, 'which records it');
select is((select count(*)::integer from q_data.key_slot where key = 'idle'), 0, 'the idle key''s free slot is gone');

select * from finish();
rollback;
