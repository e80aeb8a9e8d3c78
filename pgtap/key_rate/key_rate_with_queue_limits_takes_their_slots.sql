-- A per-key rate on a queue that also has a concurrency and a rate limit:
-- each job started holds a queue slot and stamps a queue rate slot and a key
-- rate slot; a slot the key rate left unused stays free.
begin;
select plan(6);

select q.configure('kq', concurrency => 4, rate => 100, per => '1 hour',
                   key_concurrency => 10, key_rate => 1, key_per => '1 hour') \g /dev/null
select q.enqueue('kq', jsonb_build_object('a', g), concurrency_key => 'A') from generate_series(1, 3) g \g /dev/null
select q.enqueue('kq', jsonb_build_object('b', g), concurrency_key => 'B') from generate_series(1, 3) g \g /dev/null

select is((select count(*)::integer from q.claim('kq', 4)), 2, 'one of each key, though 4 queue slots were free');
select is((select count(*)::integer from q_data.job j join q_data.queue_slot s on s.queue_id = j.queue_id and s.n = j.queue_slot and s.job_id = j.id
            where j.state = 'r'), 2, 'each running job holds its queue slot (and the slot names it)');
select is((select count(*)::integer from q_data.queue_slot where job_id is null), 2, 'the two unused queue slots stay free');
select is((select count(*)::integer from q_data.rate_slot where used_at > '-infinity'), 2, 'two queue rate stamps');
select is((select count(*)::integer from q_data.key_rate_slot where used_at > '-infinity'), 2, 'two key rate stamps');
select is((select count(*)::integer from q_data.job where rate_wait), 4, 'four put off');

select * from finish();
rollback;
