-- The sweep makes progress: every free key slot it reads is passed on or
-- deleted, whatever the key's rate window says (0007 kept the free slots of
-- keys with a start inside their window, and its scan stopped at the first
-- max_slots free rows, so 200 reaps deleted none of 3,510,000 rows).
begin;
select plan(4);

select q.configure('busy', key_concurrency => 3, key_rate => 10, key_per => '1 day') \g /dev/null
-- 1,500 keys, one job each, started and finished: every key started inside its window.
select q.enqueue_many('busy', (select jsonb_agg(i) from generate_series(1, 1500) i),
                      concurrency_keys => array(select 'k' || i from generate_series(1, 1500) i)) \g /dev/null
select q.complete_many(array_agg(c.id), array_agg(c.token)) from q.claim('busy', 750) c \g /dev/null
select q.complete_many(array_agg(c.id), array_agg(c.token)) from q.claim('busy', 750) c \g /dev/null
select is((select count(*)::integer from q_data.key_slot where job_id is null), 1500, '1,500 free slots of keys inside their window');

select q.flow_sweep(null, 1000) \g /dev/null
select is((select count(*)::integer from q_data.key_slot), 500, 'one sweep of 1,000 deletes 1,000 of them');
select q.flow_sweep(null, 1000) \g /dev/null
select is((select count(*)::integer from q_data.key_slot), 0, 'the next sweep the rest');
select is((select count(*)::integer from q_data.key_rate_slot), 1500, 'the rate slots stay: their starts are inside the window');

select * from finish();
rollback;
