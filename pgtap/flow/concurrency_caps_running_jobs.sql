-- A queue with concurrency 2 runs at most 2 jobs however many are asked for
-- and however many claims come; an empty-handed claim says why.
begin;
select plan(5);

select (q.configure('cap', concurrency => 2)).concurrency as c \gset
select q.enqueue('cap', jsonb_build_object('i', g)) from generate_series(1, 5) g \g /dev/null

select is((select count(*)::integer from q.claim('cap', 5)), 2, 'a claim of 5 gets the 2 slots');
select is((select count(*)::integer from q.claim('cap', 5)), 0, 'the next claim gets nothing');
select is(current_setting('pgq.claim_blocked', true), 'concurrency', 'and pgq.claim_blocked says the limit is full');
select is((select count(*)::integer from q_data.job where state = 'r'), 2, 'two jobs run');
select is((select array_agg(s.job_id order by s.n) from q_data.queue_slot s join q_data.queue qq on qq.id = s.queue_id where qq.name = 'cap'),
  (select array_agg(j.id order by j.queue_slot) from q_data.job j where j.state = 'r'),
  'each running job holds its own slot, recorded on both sides');

select * from finish();
rollback;
