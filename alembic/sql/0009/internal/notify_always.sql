-- NOTIFY for queues whether or not a session waits for them (q_data.waiter):
-- for the paths whose claimers do not record a wait. A claim cut short by a
-- flow-control limit is not idle (the queue has jobs) and asks for the next
-- freed slot's NOTIFY through q_data.queue.flow_waiting instead (q.flow_want,
-- q.flow_wake: a gate of their own); a claim of a paused queue returns before
-- it could record one, so q.resume wakes every listener.
create or replace function q.notify_always(queue_ids integer[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- The channel is 'pgq' and the payload the queue name, never job data.
  -- Skipped while the notification queue is filling (q.notify_allowed).
  if q.notify_allowed() then
    perform pg_notify('pgq', qq.name)
       from q_data.queue qq
      where qq.id = any(notify_always.queue_ids);
  end if;
end
$$;

comment on function q.notify_always(integer[]) is
  'Sends one NOTIFY on channel pgq per queue (payload: the queue name), whether or not a session waits for it, unless pgq.notify is off or the notification queue is filling (q.notify_allowed). For flow control''s wake-ups and q.resume.';

revoke all on function q.notify_always(integer[]) from public;
