-- A keyed job scheduled for later holds no key slot until it is due; then it
-- is admitted, or held if the key's slots are taken.
begin;
select plan(3);

select (q.configure('sched', key_concurrency => 1)).key_concurrency as k \gset
select q.enqueue('sched', '{"later": 1}', concurrency_key => 'k', run_at => clock_timestamp() + interval '1 hour') as later_id \gset
select q.enqueue('sched', '{"now": 1}', concurrency_key => 'k') as now_id \gset
select is((select key_slot from q_data.job where id = :now_id), 1::smallint, 'the due job takes the slot');
update q_data.job set run_at = now() - interval '1 second' where id = :later_id;
select q.reap() \g /dev/null
select is((select state::text from q_data.job where id = :later_id), 'h', 'the scheduled one, once due, is held');
select id, token from q.claim('sched') \gset
select q.complete(:id, :'token') \g /dev/null
select is((select state::text from q_data.job where id = :later_id), 'w', 'and admitted when the slot frees');

select * from finish();
rollback;
