create or replace function q.allow_test_clock(allowed boolean default true)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if allow_test_clock.allowed is null then
    raise exception 'allowed must be true or false' using errcode = '22004';
  end if;
  update q_data.test_clock c set allowed = allow_test_clock.allowed where c.id;
  return allow_test_clock.allowed;
end
$$;

comment on function q.allow_test_clock(boolean) is
  'Turns the scheduler''s test clock on or off for this database (off by default): while on, a member of pgq_admin may steer q.schedule_now with SET pgq.schedule_now. For test databases only: a clock set ahead moves every due schedule''s next slot ahead. Returns the new state.';

revoke all on function q.allow_test_clock(boolean) from public;
grant execute on function q.allow_test_clock(boolean) to pgq_admin;
