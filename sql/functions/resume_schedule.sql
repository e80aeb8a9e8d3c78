create or replace function q.resume_schedule(name text)
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
  v_now timestamptz := q.schedule_now();
begin
  if resume_schedule.name is null then
    raise exception 'schedule name must not be null' using errcode = '22004';
  end if;
  -- The next slot after now (and after the last one fired): what passed
  -- while paused is skipped.
  update q_data.schedule s
     set paused = false,
         next_fire_at = q.next_slot(s.spec, s.every, s.timezone, greatest(v_now, s.last_slot)),
         updated_at = v_now
   where s.name = resume_schedule.name and s.paused;
  return found or exists (select from q_data.schedule s where s.name = resume_schedule.name);
exception when lock_not_available then
  perform q.lock_wait_failed('q.resume_schedule', format('schedule %L', resume_schedule.name));
end
$$;

comment on function q.resume_schedule(text) is
  'Lets a paused schedule fire again from its next slot after now (slots passed while paused are skipped); returns false if there is no schedule of that name.';

revoke all on function q.resume_schedule(text) from public;
grant execute on function q.resume_schedule(text) to pgq_admin;
