-- The reaper's promotion pass: due scheduled jobs join the waiting line.
-- Until 0002 q.reap looped over every row of q_data.queue, and queue rows are
-- never deleted: 1.1 s per call at 100,000 queue names, almost all idle.
-- Here only queues that hold scheduled jobs are visited, found by a loose
-- index scan of job_scheduled_idx (one probe per such queue), so the cost
-- does not grow with idle queues.
create or replace function q.promote_all_due(max_jobs integer)
returns integer[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue_id  integer;
  v_woken     integer[] := '{}';
begin
  for v_queue_id in
    with recursive scheduled as (
      select (select s.queue_id from q_data.job s where s.state = 's'
               order by s.queue_id limit 1) as queue_id
      union all
      select (select s.queue_id from q_data.job s where s.state = 's' and s.queue_id > p.queue_id
               order by s.queue_id limit 1)
        from scheduled p
       where p.queue_id is not null
    )
    select x.queue_id from scheduled x where x.queue_id is not null
  loop
    if q.promote_due(v_queue_id, promote_all_due.max_jobs) > 0 then
      v_woken := v_woken || v_queue_id;
    end if;
  end loop;
  return v_woken;
end
$$;

comment on function q.promote_all_due(integer) is
  'Moves due scheduled jobs to waiting in every queue that has scheduled jobs (at most max_jobs per queue); returns the ids of the queues that got any.';

revoke all on function q.promote_all_due(integer) from public;
