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
  -- reads it (leases, backoff and retention keep the real clock), and only an
  -- admin may: a worker that set it could fire slots ahead of time.
  -- (Inside q.reap current_user is the owner: ask about the caller, the role
  -- it SET ROLE to or else its login.)
  if not pg_has_role(coalesce(nullif(current_setting('role'), 'none'), session_user::text)::name, 'pgq_admin', 'member') then
    raise exception 'pgq.schedule_now (a test clock for schedules) may only be set by members of pgq_admin'
      using errcode = '42501';
  end if;
  return v_set::timestamptz;
end
$$;

comment on function q.schedule_now() is
  'The scheduler''s clock: clock_timestamp(), or the setting pgq.schedule_now when a member of pgq_admin set it (for tests).';

revoke all on function q.schedule_now() from public;
