-- Makes slot n of a concurrency key (held by job_id, or free when NULL) without
-- waiting on another transaction: one that is making the same row and has not
-- committed yet would make this INSERT wait for its end (the unique check), for
-- as long as a producer leaves its transaction open
-- (design.md#bounded-flow-control-storage). After 10 ms it gives up and says
-- so; the caller then holds its job and lists the key for the reaper's sweep
-- (sql/schema/065_flow.sql). The exception block is a subtransaction, entered
-- only when a row is made, not per enqueue; a transaction that makes more than
-- 64 of them (an enqueue_many of many new keys) overflows its backend's
-- subtransaction cache, which makes other sessions' snapshots consult
-- pg_subtrans until it ends: keep such batches in short transactions.
create or replace function q.flow_add_key_slot(queue_id integer, key text, n smallint, job_id bigint)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
set lock_timeout = '10ms'
as $$
begin
  insert into q_data.key_slot (queue_id, key, n, job_id)
  values (flow_add_key_slot.queue_id, flow_add_key_slot.key, flow_add_key_slot.n, flow_add_key_slot.job_id)
  on conflict do nothing;
  return found;
exception when lock_not_available or serialization_failure then
  -- (REPEATABLE READ: the row was made after our snapshot)
  return false;
end
$$;

comment on function q.flow_add_key_slot(integer, text, smallint, bigint) is
  'Makes key slot n of (queue_id, key) held by job_id (NULL: free); false when it exists or another open transaction is making it (waits at most 10 ms).';

revoke all on function q.flow_add_key_slot(integer, text, smallint, bigint) from public;
