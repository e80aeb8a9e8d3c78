-- A claim from a REPEATABLE READ transaction takes the same one-by-one path
-- and obeys the key rate: it puts off what it must and stamps what it starts.
begin transaction isolation level repeatable read;
select plan(4);

select q.configure('rr_kr', key_concurrency => 10, key_rate => 2, key_per => '1 hour') \g /dev/null
select q.enqueue('rr_kr', jsonb_build_object('i', g), concurrency_key => 'K') from generate_series(1, 5) g \g /dev/null

select is(current_setting('transaction_isolation'), 'repeatable read', '(this transaction is REPEATABLE READ)');
select is((select count(*)::integer from q.claim('rr_kr', 10)), 2, 'a claim starts 2 of the key');
select is((select count(*)::integer from q.claim('rr_kr', 10)), 0, 'the next one none');
select is((select count(*)::integer from q_data.key_rate_slot where used_at > '-infinity'), 2, 'each start stamped a slot');

select * from finish();
rollback;
