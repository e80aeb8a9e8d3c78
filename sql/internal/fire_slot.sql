create or replace function q.fire_slot(schedule q_data.schedule, slot timestamptz)
returns bigint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  v_id bigint;
begin
  -- The ledger row first: if (schedule, slot) was fired already, nothing is
  -- enqueued. The job id is drawn up front so the ledger and the job are
  -- written in one statement.
  with fired as (
    insert into q_data.schedule_fire as f (schedule_id, slot, job_id, fired_at)
    values (fire_slot.schedule.id, fire_slot.slot, nextval('q_data.job_id_seq'), clock_timestamp())
    on conflict (schedule_id, slot) do nothing
    returning f.job_id
  )
  insert into q_data.job as j (id, queue_id, payload, run_at, state, priority, max_attempts)
  overriding system value
  select fired.job_id,
         fire_slot.schedule.queue_id,
         -- The slot rides in the payload, in UTC whatever the session's
         -- TimeZone, so a handler can be idempotent per slot.
         fire_slot.schedule.payload || jsonb_build_object(
           'schedule', fire_slot.schedule.name,
           'slot', to_char(fire_slot.slot at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
         -- run_at is when it was enqueued (the real clock): slot to run_at is
         -- the fire lateness.
         clock_timestamp(),
         'w',
         fire_slot.schedule.priority,
         fire_slot.schedule.max_attempts
    from fired
  returning j.id into v_id;
  return v_id;
end
$$;

comment on function q.fire_slot(q_data.schedule, timestamptz) is
  'Enqueues the job of one slot unless the ledger q_data.schedule_fire has it already; returns the job id, or NULL if the slot was fired before.';

revoke all on function q.fire_slot(q_data.schedule, timestamptz) from public;
