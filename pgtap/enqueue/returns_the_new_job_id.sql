-- q.enqueue returns the id of the job it inserted, a new one each time, and
-- the job is waiting (due now) when no run_at is given.
begin;
select plan(5);

select q.enqueue('enq', '{"n": 1}') as first_id \gset
select q.enqueue('enq', '{"n": 2}') as second_id \gset

select isnt(:first_id::bigint, null, 'enqueue returns an id');
select cmp_ok(:second_id::bigint, '>', :first_id::bigint, 'a later enqueue gets a larger id');
select is((select payload from q_data.job where id = :first_id), '{"n": 1}'::jsonb, 'the id names the job that was inserted');
select is((select state::text from q_data.job where id = :first_id), 'w', 'without run_at the job is waiting');
select ok((select run_at <= clock_timestamp() and attempt = 0 and token is null from q_data.job where id = :first_id),
  'a new job is due now, never attempted and unclaimed');

select * from finish();
rollback;
