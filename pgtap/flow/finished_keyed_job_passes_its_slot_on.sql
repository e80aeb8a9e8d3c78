-- A keyed job that finishes (complete, dead, cancel) passes its key slot to
-- the key's next held job in the same transaction; release and a retry keep it.
begin;
select plan(7);

select (q.configure('pass', key_concurrency => 1)).key_concurrency as k \gset
select q.enqueue('pass', jsonb_build_object('i', g), concurrency_key => 'k') from generate_series(1, 5) g \g /dev/null

select id, token from q.claim('pass') \gset
select is((select count(*)::integer from q_data.job where state = 'h'), 4, 'four held behind the running one');
select q.complete(:id, :'token') \g /dev/null
select is((select payload->>'i' from q_data.job where state = 'w'), '2', 'complete admits the next one');

select id, token from q.claim('pass') \gset
select q.release(:id, :'token') \g /dev/null
select is((select count(*)::integer from q_data.job where state = 'h'), 3, 'release keeps the slot: nothing more admitted');

select id, token from q.claim('pass') \gset
select q.fail(:id, :'token', 'again', retry_in => '0') \g /dev/null
select is((select count(*)::integer from q_data.job where state = 'h'), 3, 'a retry keeps the slot');
select is((select key_slot from q_data.job where id = :id), 1::smallint, 'the retrying job still holds it');

select id, token from q.claim('pass') \gset
select q.fail(:id, :'token', 'dead', retryable => false) \g /dev/null
select is((select payload->>'i' from q_data.job where state = 'w'), '3', 'a dead job admits the next one');

select q.cancel((select id from q_data.job where state = 'w')) \g /dev/null
select is((select payload->>'i' from q_data.job where state = 'w'), '4', 'a cancelled job admits the next one');

select * from finish();
rollback;
