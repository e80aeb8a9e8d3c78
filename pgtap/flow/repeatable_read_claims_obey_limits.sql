-- A claim from a REPEATABLE READ transaction takes the snapshot path and
-- still takes a slot per job: the limit holds.
begin transaction isolation level repeatable read;
select plan(4);

select (q.configure('rr_cap', concurrency => 2)).concurrency as c \gset
select q.enqueue('rr_cap', jsonb_build_object('i', g)) from generate_series(1, 5) g \g /dev/null

select is(current_setting('transaction_isolation'), 'repeatable read', '(this transaction is REPEATABLE READ)');
select is((select count(*)::integer from q.claim('rr_cap', 5)), 2, 'a claim gets the 2 slots');
select is((select count(*)::integer from q.claim('rr_cap', 5)), 0, 'the next one nothing');
select is((select count(*)::integer from q_data.job j where j.state = 'r' and j.queue_slot is not null), 2, 'each running job holds a slot');

select * from finish();
rollback;
