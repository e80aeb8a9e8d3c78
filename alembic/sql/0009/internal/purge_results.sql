-- The reaper's results pass, as q.purge_history: it visits only queues that
-- have results (a loose index scan of job_result_finished_idx) and reads each
-- queue's keep_results by its primary key. Results of a queue that is gone
-- (q.delete_queue, q.forget_idle_queues) go at once.
create or replace function q.purge_results(max_rows integer, now timestamptz)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue_id  integer;
  v_keep      interval;
  v_count     integer;
  v_purged    integer := 0;
begin
  for v_queue_id in
    with recursive kept as (
      select (select r.queue_id from q_data.job_result r order by r.queue_id limit 1) as queue_id
      union all
      select (select r.queue_id from q_data.job_result r where r.queue_id > p.queue_id
               order by r.queue_id limit 1)
        from kept p
       where p.queue_id is not null
    )
    select x.queue_id from kept x where x.queue_id is not null
  loop
    exit when v_purged >= purge_results.max_rows;
    v_keep := (select qq.keep_results from q_data.queue qq where qq.id = v_queue_id);
    delete from q_data.job_result r
     where r.ctid = any(array(
             select x.ctid from q_data.job_result x
              where x.queue_id = v_queue_id
                and x.finished_at < purge_results.now - coalesce(v_keep, interval '0')
              order by x.finished_at
              limit purge_results.max_rows - v_purged
                for update skip locked));
    get diagnostics v_count = row_count;
    v_purged := v_purged + v_count;
  end loop;
  -- Waits that ended without an outcome (the waiter timed out or went away).
  delete from q_data.result_waiter w
   where w.ctid = any(array(
           select x.ctid from q_data.result_waiter x
            where x.until < purge_results.now
            limit purge_results.max_rows
              for update skip locked));
  return v_purged;
end
$$;

comment on function q.purge_results(integer, timestamptz) is
  'Deletes up to max_rows results older than their queue''s keep_results (any age when the queue is gone) from q_data.job_result, and up to max_rows expired q_data.result_waiter rows; returns how many results.';

revoke all on function q.purge_results(integer, timestamptz) from public;
