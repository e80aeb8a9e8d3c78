-- reap moves scheduled jobs whose time has come to waiting (and only
-- those). "Time passes" by moving one job's run_at into the past.
begin;
select plan(3);

select q.enqueue('promote', '{}', run_at => clock_timestamp() + interval '1 hour') as due_id \gset
select q.enqueue('promote', '{}', run_at => clock_timestamp() + interval '1 hour') as later_id \gset
update q_data.job set run_at = now() - interval '1 second' where id = :due_id;

select is(q.reap(), 0, 'promotions are not counted as recovered claims');
select is((select state::text from q_data.job where id = :due_id), 'w', 'the due scheduled job is waiting');
select is((select state::text from q_data.job where id = :later_id), 's', 'the job not yet due is still scheduled');

select * from finish();
rollback;
