-- A slot of a limited queue was freed, or a held job admitted: NOTIFY pgq
-- only if a listening claimer asked for it (q.flow_want). NOTIFY takes a
-- global lock from pre-commit until the commit record is flushed, so a
-- notification per completion serialized every completing transaction: 700
-- jobs/s instead of ~9,000 for a queue with concurrency 50 in the flow bench.
create or replace function q.flow_wake(queue_id integer)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if not exists (select from q_data.queue qq where qq.id = flow_wake.queue_id and qq.flow_waiting) then
    return;
  end if;
  -- SKIP LOCKED: a row locked is being cleared by another waker (which
  -- notifies) or set by a claimer (whose worker looks again shortly).
  update q_data.queue qq
     set flow_waiting = false
   where qq.ctid = (select x.ctid from q_data.queue x
                     where x.id = flow_wake.queue_id and x.flow_waiting
                       for update skip locked);
  if found then
    perform q.notify_always(array[flow_wake.queue_id]);
  end if;
exception when serialization_failure then
  perform q.notify_always(array[flow_wake.queue_id]);  -- REPEATABLE READ: notify, to be safe
end
$$;

comment on function q.flow_wake(integer) is
  'Sends NOTIFY pgq for the queue if a listening claimer waits for a slot (q_data.queue.flow_waiting), and clears the flag.';

revoke all on function q.flow_wake(integer) from public;
