-- The reaper's pass over free key slots (about once a second). A slot freed
-- while a held job's enqueue had not committed yet found nobody to pass to
-- (see q.flow_take_key_slot): it goes to that job now. A free slot of a key
-- with nothing held is deleted, so keys that come and go (one per order, say)
-- do not pile up rows; the key's next enqueue makes them again.
create or replace function q.flow_sweep(queue_id integer, max_slots integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_slot   record;
  v_moved  integer := 0;
begin
  -- FOR UPDATE (not NO KEY UPDATE) conflicts with the KEY SHARE pin of an
  -- enqueue that is holding a job right now: such a key is skipped.
  for v_slot in
    select s.queue_id, s.key, s.n
      from q.key_slot s
     where s.job_id is null
       and (flow_sweep.queue_id is null or s.queue_id = flow_sweep.queue_id)
     limit flow_sweep.max_slots
       for update skip locked
  loop
    if q.flow_pass_key_slot(v_slot.queue_id, v_slot.key, v_slot.n) is not null then
      v_moved := v_moved + 1;
    else
      -- (by key: the pass rewrote the row, so its ctid is stale)
      delete from q.key_slot s
       where s.queue_id = v_slot.queue_id and s.key = v_slot.key and s.n = v_slot.n
         and s.job_id is null;
    end if;
  end loop;
  return v_moved;
end
$$;

comment on function q.flow_sweep(integer, integer) is
  'Passes free key slots to held jobs of their key (a race with an uncommitted enqueue leaves such pairs) and deletes free slots of keys with nothing held; at most max_slots per call, one queue or all (NULL). Returns how many jobs it admitted.';

revoke all on function q.flow_sweep(integer, integer) from public;
