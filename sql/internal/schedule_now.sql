create or replace function q.schedule_now()
returns timestamptz
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_set text := current_setting('pgq.schedule_now', true);
begin
  if v_set is null or v_set = '' then
    -- clock_timestamp, not now(): a reap transaction may be long, and a slot
    -- is due when the clock says so, not when the transaction began.
    return clock_timestamp();
  end if;
  -- Tests walk schedules through DST changes and downtime by setting the
  -- clock: SET pgq.schedule_now = '2026-03-29 01:59+01'. Only the scheduler
  -- reads it (leases, backoff and retention keep the real clock), only where
  -- the database allows it (q.allow_test_clock: off by default, so no
  -- session of a production database can move a schedule), and only for an
  -- admin: a worker that set it could fire slots ahead of time. Otherwise it
  -- is ignored with a warning, and the real clock runs: up to 0007 a
  -- non-admin's setting raised here, and every reap of that session fired
  -- nothing. (Inside q.reap current_user is the owner: ask about the caller,
  -- the role it SET ROLE to or else its login.)
  if not (select c.allowed from q_data.test_clock c) then
    raise warning 'pgq.schedule_now is ignored: the test clock is off in this database (q.allow_test_clock(true) turns it on, for test databases only)';
    return clock_timestamp();
  end if;
  if not pg_has_role(coalesce(nullif(current_setting('role'), 'none'), session_user::text)::name, 'pgq_admin', 'member') then
    raise warning 'pgq.schedule_now is ignored: only members of pgq_admin may steer the scheduler''s clock';
    return clock_timestamp();
  end if;
  return v_set::timestamptz;
end
$$;

comment on function q.schedule_now() is
  'The scheduler''s clock: clock_timestamp(), or the setting pgq.schedule_now where the database allows the test clock (q.allow_test_clock) and a member of pgq_admin set it; otherwise the setting is ignored with a warning.';

revoke all on function q.schedule_now() from public;
