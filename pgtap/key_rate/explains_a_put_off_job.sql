-- q.flow_block_reason, q.explain and q.limits show a per-key rate: a
-- put-off job says key_rate and when it may start (not backing_off or
-- scheduled), q.limits the rate and its window.
begin;
select plan(5);

select q.configure('ke', key_concurrency => 5, key_rate => 1, key_per => '1 hour') \g /dev/null
select q.enqueue('ke', jsonb_build_object('i', g), concurrency_key => 'K') from generate_series(1, 3) g \g /dev/null
select id as waiting_id from q_data.job where payload->>'i' = '3' \gset
select q.claim('ke', 1) \g /dev/null
select is((select code from q.flow_block_reason(:waiting_id)), 'key_rate', 'a waiting job of a key at its rate: key_rate');
select q.claim('ke', 10) \g /dev/null
select id as off_id from q_data.job where rate_wait limit 1 \gset

select is((select code from q.flow_block_reason(:off_id)), 'key_rate', 'a put-off job: key_rate');
select matches((select reason from q.flow_block_reason(:off_id)), 'put off by the rate of concurrency key ''K'': at most 1 start\(s\) per 01:00:00',
  'the reason names the key and its rate');
select is((select array_agg(code) from q.explain(:off_id)), '{key_rate}', 'q.explain gives that reason only');
select results_eq($$ select key_rate, key_per from q.limits('ke') $$, $$ values (1, interval '1 hour') $$, 'q.limits shows the key rate');

select * from finish();
rollback;
