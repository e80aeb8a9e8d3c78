-- A claim of a limited queue came back short and its session listens for
-- NOTIFY pgq (it says so with pgq.listening = on; the worker runtime sets it
-- in its round statement): ask the next job that frees a slot, or passes a
-- key slot on, to notify. One flag per queue, set with SKIP LOCKED, so
-- claimers never wait on it; sessions that do not listen never write it.
create or replace function q.flow_want(queue_id integer)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if coalesce(current_setting('pgq.listening', true), '') <> 'on' then
    return;
  end if;
  update q_data.queue qq
     set flow_waiting = true
   where qq.ctid = (select x.ctid from q_data.queue x
                     where x.id = flow_want.queue_id and not x.flow_waiting
                       for update skip locked);
exception when serialization_failure then
  null;  -- REPEATABLE READ, and someone changed the flag after our snapshot: it is being handled
end
$$;

comment on function q.flow_want(integer) is
  'Marks that a listening claimer waits for a slot of the queue (q_data.queue.flow_waiting), when pgq.listening is on; never waits.';

revoke all on function q.flow_want(integer) from public;
