create or replace function q.notify_queues(queue_ids integer[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
-- plpgsql, not sql: its statement plans are cached for the session, while a
-- non-inlinable sql function is planned again on every call.
begin
  -- The channel is 'pgq' and the payload the queue name, never job data.
  -- A hint only: workers also poll, so a lost notification costs latency.
  if coalesce(current_setting('pgq.notify', true), '') <> 'off' then
    perform pg_notify('pgq', qq.name)
       from q.queue qq
      where qq.id = any(notify_queues.queue_ids);
  end if;
end
$$;

comment on function q.notify_queues(integer[]) is
  'Sends one NOTIFY on channel pgq per queue (payload: the queue name) unless pgq.notify is off.';

revoke all on function q.notify_queues(integer[]) from public;
