create or replace function q.unschedule(name text)
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
  if unschedule.name is null then
    raise exception 'schedule name must not be null' using errcode = '22004';
  end if;
  -- Its ledger goes with it (on delete cascade); jobs already enqueued stay.
  delete from q_data.schedule s where s.name = unschedule.name;
  return found;
exception when lock_not_available then
  perform q.lock_wait_failed('q.unschedule', format('schedule %L', unschedule.name));
end
$$;

comment on function q.unschedule(text) is
  'Deletes a schedule (jobs it already enqueued stay); returns false if there was none of that name.';

revoke all on function q.unschedule(text) from public;
grant execute on function q.unschedule(text) to pgq_admin;
