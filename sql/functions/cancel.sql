create or replace function q.cancel(id bigint)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
declare
  v_job q_data.job;
begin
  if cancel.id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;
  -- A waiting job has no id index (see q_data.job), so this may scan the table:
  -- an admin action, kept off the claim path on purpose.
  delete from q_data.job j where j.id = cancel.id returning j.* into v_job;
  if found then
    -- Its end (sql/internal/job_ended.sql): its children follow their
    -- on_parent_failure policy (cascading).
    if v_job.queue_slot is not null or v_job.key_slot is not null or v_job.has_children
       or v_job.batch_id is not null or v_job.parents_left is not null then
      perform q.job_ended(v_job, 'x');
    end if;
    perform q.finish(v_job, 'cancelled', clock_timestamp());
    return true;
  end if;
  if exists (select from q_data.job_history h where h.id = cancel.id) then
    return false;
  end if;
  raise exception 'job % does not exist', cancel.id using errcode = 'P0002';
exception when lock_not_available then
  perform q.lock_wait_failed('q.cancel', format('job %s', cancel.id));
end
$$;

comment on function q.cancel(bigint) is
  'Cancels a waiting, scheduled or running job: it moves to q_data.job_history as cancelled, its claim stops being valid, and the worker''s next heartbeat says ''cancelled''. Returns false if the job had already finished; raises P0002 for an unknown id.';

revoke all on function q.cancel(bigint) from public;
grant execute on function q.cancel(bigint) to pgq_admin;
