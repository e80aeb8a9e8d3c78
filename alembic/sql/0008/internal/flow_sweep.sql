-- The reaper's pass over free key slots (about once a second). A slot freed
-- while a held job's enqueue had not committed yet found nobody to pass to
-- (see q.flow_take_key_slot): it goes to that job now. A free slot of a key
-- with nothing held (and no start in its key_rate window) is deleted, so
-- keys that come and go (one per order, say) do not pile up rows; the key's
-- next enqueue makes them again.
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
      from q_data.key_slot s
     where s.job_id is null
       and (flow_sweep.queue_id is null or s.queue_id = flow_sweep.queue_id)
     limit flow_sweep.max_slots
       for update skip locked
  loop
    if q.flow_pass_key_slot(v_slot.queue_id, v_slot.key, v_slot.n) is not null then
      v_moved := v_moved + 1;
    elsif not exists (select from q_data.key_rate_slot r join q_data.queue qq on qq.id = r.queue_id
                       where r.queue_id = v_slot.queue_id and r.key = v_slot.key
                         and r.used_at > clock_timestamp() - qq.key_per) then
      -- (by key: the pass rewrote the row, so its ctid is stale)
      delete from q_data.key_slot s
       where s.queue_id = v_slot.queue_id and s.key = v_slot.key and s.n = v_slot.n
         and s.job_id is null;
      -- The key's last slot: its rate slots go too (every start they hold
      -- is older than the window, or the key would have been kept above).
      -- One a claim has locked stays; a key short of rows gets them back
      -- from its next admission or claim.
      if not exists (select from q_data.key_slot s where s.queue_id = v_slot.queue_id and s.key = v_slot.key) then
        delete from q_data.key_rate_slot r
         where r.ctid = any(array(
                 select x.ctid from q_data.key_rate_slot x
                  where x.queue_id = v_slot.queue_id and x.key = v_slot.key
                    for update skip locked));
      end if;
    end if;
  end loop;
  return v_moved;
end
$$;

comment on function q.flow_sweep(integer, integer) is
  'Passes free key slots to held jobs of their key (a race with an uncommitted enqueue leaves such pairs) and deletes free slots of keys with nothing held and no start in their key_rate window (with the key''s last slot, its rate slots); at most max_slots per call, one queue or all (NULL). Returns how many jobs it admitted.';

revoke all on function q.flow_sweep(integer, integer) from public;
