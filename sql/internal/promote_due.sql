create or replace function q.promote_due(queue_id integer, max_jobs integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_count  integer;
  v_keyed  tid[];
begin
  with promoted as (
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
                for update skip locked))
    returning j.ctid, j.concurrency_key, j.key_slot
  )
  select count(*), array_agg(p.ctid) filter (where p.concurrency_key is not null and p.key_slot is null)
    into v_count, v_keyed
    from promoted p;
  -- Keyed jobs without a slot (a retry keeps its own) take one or are held.
  if v_keyed is not null then
    perform q.flow_admit(v_keyed);
  end if;
  return v_count;
exception when serialization_failure then
  -- REPEATABLE READ caller and a concurrent promoter: leave it to them.
  return 0;
end
$$;

comment on function q.promote_due(integer, integer) is
  'Moves up to max_jobs scheduled jobs of a queue whose run_at has come to waiting; returns how many.';

revoke all on function q.promote_due(integer, integer) from public;
