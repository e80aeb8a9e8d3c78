create or replace function q.promote_due(queue_id integer, max_jobs integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_count integer;
begin
  update q_data.job j
     set state = 'w'
   where j.ctid = any(array(
           select s.ctid
             from q_data.job s
            where s.queue_id = promote_due.queue_id
              and s.state = 's'
              and s.run_at <= clock_timestamp()
            order by s.run_at
            limit promote_due.max_jobs
              for update skip locked));
  get diagnostics v_count = row_count;
  return v_count;
exception when serialization_failure then
  -- REPEATABLE READ caller and a concurrent promoter: leave it to them.
  return 0;
end
$$;

comment on function q.promote_due(integer, integer) is
  'Moves up to max_jobs scheduled jobs of a queue whose run_at has come to waiting; returns how many.';

revoke all on function q.promote_due(integer, integer) from public;
