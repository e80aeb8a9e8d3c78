-- A run_at in the future makes the job scheduled ('s') at exactly that time;
-- one in the past is simply due (waiting, keeping its older place in line).
begin;
select plan(4);

select q.enqueue('enq', '{}', run_at => '2999-01-01 00:00:00+00') as later_id \gset
select q.enqueue('enq', '{}', run_at => now() - interval '1 hour') as past_id \gset

select is((select state::text from q_data.job where id = :later_id), 's', 'a future run_at makes the job scheduled');
select is((select run_at from q_data.job where id = :later_id), '2999-01-01 00:00:00+00'::timestamptz, 'the scheduled job keeps the given run_at');
select is((select state::text from q_data.job where id = :past_id), 'w', 'a past run_at makes the job waiting');
select is((select run_at from q_data.job where id = :past_id), now() - interval '1 hour', 'the past run_at is kept as its place in line');

select * from finish();
rollback;
