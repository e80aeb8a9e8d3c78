-- ordered => true: a key's jobs run strictly one after another in enqueue
-- order, and a failing job keeps the key's place (its retry runs before the
-- key's later jobs).
begin;
select plan(6);

select (q.configure('ord', ordered => true, backoff_base => '0', backoff_max => '0')).ordered as o \gset
select is((select key_concurrency from q_data.queue where name = 'ord'), 1, 'ordered implies key_concurrency 1');
select q.enqueue('ord', jsonb_build_object('i', g), concurrency_key => 'acct') from generate_series(1, 3) g \g /dev/null

select id, token from q.claim('ord', 10) \gset
select is((select count(*)::integer from q.claim('ord', 10)), 0, 'only the first runs');
select q.fail(:id, :'token', 'flaky') \g /dev/null
select id as again_id, token, payload from q.claim('ord', 10) \gset
select is(:again_id::bigint, :id::bigint, 'the failed job runs again before the others');
select q.complete(:again_id, :'token') \g /dev/null
select is((select payload->>'i' from q.claim('ord', 10)), '2', 'then the second');
select is((select count(*)::integer from q.claim('ord', 10)), 0, 'and only it');
select is((select payload->>'i' from q_data.job where state = 'h'), '3', 'the third waits, held');

select * from finish();
rollback;
