create or replace function q.pause_schedule(name text)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
begin
  if pause_schedule.name is null then
    raise exception 'schedule name must not be null' using errcode = '22004';
  end if;
  update q_data.schedule s
     set paused = true, updated_at = q.schedule_now()
   where s.name = pause_schedule.name and not s.paused;
  return found or exists (select from q_data.schedule s where s.name = pause_schedule.name);
exception when lock_not_available then
  perform q.lock_wait_failed('q.pause_schedule', format('schedule %L', pause_schedule.name));
end
$$;

comment on function q.pause_schedule(text) is
  'Stops a schedule firing (slots passing while paused are skipped, not caught up); returns false if there is no schedule of that name.';

revoke all on function q.pause_schedule(text) from public;
grant execute on function q.pause_schedule(text) to pgq_admin;
