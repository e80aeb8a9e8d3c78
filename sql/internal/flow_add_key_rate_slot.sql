-- Makes rate slot n of a concurrency key, never used ('-infinity'), for a
-- claim that found none of the key's slots free and fewer than key_rate of
-- them (sql/schema/075_key_rate.sql); the claim then takes and stamps it as any
-- other. Like q.flow_add_key_slot it waits at most 10 ms for another claim
-- making the same row, so claimers never wait on each other.
create or replace function q.flow_add_key_rate_slot(queue_id integer, key text, n smallint)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
set lock_timeout = '10ms'
as $$
begin
  insert into q_data.key_rate_slot (queue_id, key, n)
  values (flow_add_key_rate_slot.queue_id, flow_add_key_rate_slot.key, flow_add_key_rate_slot.n)
  on conflict do nothing;
  return found;
exception when lock_not_available or serialization_failure then
  return false;
end
$$;

comment on function q.flow_add_key_rate_slot(integer, text, smallint) is
  'Makes rate slot n of (queue_id, key), never used; false when it exists or another open transaction is making it (waits at most 10 ms).';

revoke all on function q.flow_add_key_rate_slot(integer, text, smallint) from public;
