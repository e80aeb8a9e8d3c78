-- Admission of keyed jobs that became waiting by an UPDATE (see
-- sql/schema/065_flow.sql): a scheduled job come due (q.promote_due), a child
-- whose last parent ended (q.deps_resolve), a job an operator unblocked
-- (q.unblock), jobs a key rate put off when the rate changes
-- (q.flow_configure). Each takes a key slot (q.flow_take_key_slot) or is
-- held (state h), in the caller's transaction, before anyone else can see
-- it waiting. Jobs inserted waiting are admitted by the BEFORE INSERT
-- trigger (sql/triggers/flow.sql); a retry keeps its key slot and needs none.
--
-- The callers pass the row versions (ctid, from their UPDATE's RETURNING) of
-- the jobs they made waiting with a concurrency key and no key slot, so a job
-- without a key costs nothing here, and the rows are found without an index
-- (q_data.job has none on id alone: a waiting job by id would be a scan).
--
-- Why not a BEFORE UPDATE trigger as up to revision 0011: see
-- q.flow_free_queue_slot (every UPDATE of q_data.job paid for it). The cost
-- moved to the admitted job: a second row version (the key slot, or state h)
-- written by this function instead of by the trigger before the first.
create or replace function q.flow_admit(jobs tid[])
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_job   record;
  v_n     smallint;
  v_held  integer := 0;
begin
  -- The caller wrote (and so locked) these row versions in this transaction:
  -- they stay put until it ends. Due order, as the key's line is kept.
  for v_job in
    select j.ctid, j.id, j.queue_id, j.concurrency_key, qq.key_concurrency
      from q_data.job j
      join q_data.queue qq on qq.id = j.queue_id
     where j.ctid = any(flow_admit.jobs)
       and j.state = 'w'
       and j.concurrency_key is not null
       and j.key_slot is null
       and qq.key_concurrency is not null
     order by j.priority desc, j.run_at, j.id
  loop
    v_n := q.flow_take_key_slot(v_job.queue_id, v_job.concurrency_key, v_job.key_concurrency, v_job.id);
    if v_n is null then
      update q_data.job j set state = 'h' where j.ctid = v_job.ctid;
      v_held := v_held + 1;
    else
      update q_data.job j set key_slot = v_n where j.ctid = v_job.ctid;
    end if;
  end loop;
  return v_held;
end
$$;

comment on function q.flow_admit(tid[]) is
  'Keyed jobs the caller just made waiting (their row versions, from its UPDATE''s RETURNING ctid) on a queue with key_concurrency: each takes a key slot or is held (state h). Other rows are ignored. Returns how many were held.';

revoke all on function q.flow_admit(tid[]) from public;
