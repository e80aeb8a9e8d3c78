-- The reaper's history pass: finished jobs past their queue's retention go.
-- Like q.promote_all_due, it visits only queues that have history (a loose
-- index scan of job_history_finished_idx, one probe per such queue) and
-- reads each queue's retention by its primary key: never a pass over every
-- q_data.queue row (a join with q_data.queue let the planner hash all of them, and
-- the cost grew with idle queues again).
create or replace function q.purge_history(max_jobs integer, now timestamptz)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue_id   integer;
  v_retention  interval;
  v_count      integer;
  v_purged     integer := 0;
begin
  for v_queue_id in
    with recursive kept as (
      select (select h.queue_id from q_data.job_history h order by h.queue_id limit 1) as queue_id
      union all
      select (select h.queue_id from q_data.job_history h where h.queue_id > p.queue_id
               order by h.queue_id limit 1)
        from kept p
       where p.queue_id is not null
    )
    select x.queue_id from kept x where x.queue_id is not null
  loop
    select qq.retention into v_retention from q_data.queue qq where qq.id = v_queue_id;
    delete from q_data.job_history h
     where h.ctid = any(array(
             select x.ctid from q_data.job_history x
              where x.queue_id = v_queue_id
                and x.finished_at < purge_history.now - v_retention
              limit purge_history.max_jobs));
    get diagnostics v_count = row_count;
    v_purged := v_purged + v_count;
  end loop;
  return v_purged;
end
$$;

comment on function q.purge_history(integer, timestamptz) is
  'Deletes finished jobs older than their queue''s retention (at most max_jobs per queue) from q_data.job_history, visiting only queues that have history; returns how many.';

revoke all on function q.purge_history(integer, timestamptz) from public;
