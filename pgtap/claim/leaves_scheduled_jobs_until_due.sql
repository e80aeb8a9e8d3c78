-- A job scheduled for later is not claimed before its run_at.
begin;
select plan(3);

select q.enqueue('claim', '{"later": true}', run_at => clock_timestamp() + interval '1 hour') as later_id \gset

select is((select count(*)::integer from q.claim('claim', 10)), 0, 'a job due in an hour is not claimed');
select is((select state::text from q_data.job where id = :later_id), 's', 'it stays scheduled');
select is((select attempt::integer from q_data.job where id = :later_id), 0, 'and unattempted');

select * from finish();
rollback;
