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
  -- Skipped while the notification queue is filling (q.notify_allowed).
  if q.notify_allowed() then
    perform pg_notify('pgq', qq.name)
       from q_data.queue qq
      where qq.id = any(notify_queues.queue_ids);
  end if;
end
$$;

comment on function q.notify_queues(integer[]) is
  'Sends one NOTIFY on channel pgq per queue (payload: the queue name) unless pgq.notify is off or the notification queue is filling (q.notify_allowed).';

revoke all on function q.notify_queues(integer[]) from public;
