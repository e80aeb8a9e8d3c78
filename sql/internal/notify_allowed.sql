-- NOTIFY is only a hint (workers poll too), so it must never fail a
-- producer. PostgreSQL's notification queue is cluster-wide and shared: one
-- session that LISTENs and stays idle in a transaction keeps every later
-- notification queued, and once the queue is full every COMMIT that sends
-- one fails with 54000 -- every enqueue, fail(retry_in => 0) and release
-- with it. Above the limit pgq sends none; pg_notify itself still raises for
-- other applications, which is theirs to handle.
create or replace function q.notify_allowed()
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_limit text := current_setting('pgq.notify_queue_limit', true);
begin
  if coalesce(current_setting('pgq.notify', true), '') = 'off' then
    return false;
  end if;
  -- A malformed setting falls back to the default instead of failing enqueues.
  return pg_notification_queue_usage()
         < case when v_limit ~ '^\s*(0|1|0?\.[0-9]+|0\.[0-9]*|1\.0*)\s*$' then v_limit::float8 else 0.5 end;
end
$$;

comment on function q.notify_allowed() is
  'Whether pgq sends its NOTIFY hints now: not when pgq.notify is off, nor when the notification queue is at least pgq.notify_queue_limit full (default 0.5, a fraction of the queue).';

revoke all on function q.notify_allowed() from public;
