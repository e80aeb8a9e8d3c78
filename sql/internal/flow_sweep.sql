-- The reaper's pass over flow-control rows (about once a second; and
-- q.configure's, for one queue, when a key limit is raised). Three bounded
-- steps, each reading only candidates an index lists, and each candidate it
-- reads is settled (passed on or deleted), so every call makes progress
-- whatever the number of keys (revision 0008; 0007 seq-scanned q_data.key_slot
-- and kept the free rows of keys inside their rate window, so a sweep could
-- read the same 1,000 rows forever):
--
-- 1. Free key slots (key_slot_free_idx): a held job of the key gets it (a slot
--    freed while the held job's enqueue had not committed yet found nobody to
--    pass to), else it is deleted.
-- 2. Keys listed in q_data.key_recheck, oldest first: their held jobs are
--    admitted while the key has room (free rows, then new ones), so a job held
--    without a slot it is sure to be passed (see q.flow_take_key_slot) runs.
--    A key that another open transaction is making a slot for goes back to the
--    end of the list.
-- 3. Per-key rate slots whose stamp left the window, per queue oldest first
--    (key_rate_slot_used_idx): a missing row is a row never used.
create or replace function q.flow_sweep(queue_id integer, max_slots integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_slot     record;
  v_check    record;
  v_moved    integer := 0;
  v_k        integer;
  v_n        smallint;
  v_settled  boolean;
  v_queue    record;
  v_cutoff   timestamptz;
begin
  -- 1. FOR UPDATE: an admission taking a free row (NO KEY UPDATE SKIP
  -- LOCKED) steps over the ones we hold, and we over its.
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
    else
      delete from q_data.key_slot s
       where s.queue_id = v_slot.queue_id and s.key = v_slot.key and s.n = v_slot.n
         and s.job_id is null;
      -- Not passed on although jobs are held: a slot above a lowered limit.
      -- The key's held jobs may need one below it.
      if exists (select from q_data.job h
                  where h.queue_id = v_slot.queue_id and h.concurrency_key = v_slot.key and h.state = 'h') then
        insert into q_data.key_recheck (queue_id, key) values (v_slot.queue_id, v_slot.key);
      end if;
    end if;
  end loop;

  -- 2.
  for v_check in
    select r.id, r.queue_id, r.key
      from q_data.key_recheck r
     where (flow_sweep.queue_id is null or r.queue_id = flow_sweep.queue_id)
     order by r.id
     limit flow_sweep.max_slots
       for update skip locked
  loop
    delete from q_data.key_recheck r where r.id = v_check.id;
    select qq.key_concurrency into v_k from q_data.queue qq where qq.id = v_check.queue_id;
    v_settled := true;
    -- (a limit removed: q.configure made the held jobs waiting)
    while v_k is not null
          and exists (select from q_data.job h
                       where h.queue_id = v_check.queue_id and h.concurrency_key = v_check.key
                         and h.state = 'h') loop
      select s.n into v_n
        from q_data.key_slot s
       where s.queue_id = v_check.queue_id and s.key = v_check.key
         and s.n <= v_k and s.job_id is null
       order by s.n
       limit 1
         for no key update skip locked;
      if not found then
        -- At its limit: each running job passes its slot on as it finishes
        -- (the held jobs are visible to it now), or frees it for step 1.
        exit when (select count(*) from q_data.key_slot s
                    where s.queue_id = v_check.queue_id and s.key = v_check.key
                      and s.n <= v_k) >= v_k;
        v_n := (select g::smallint
                  from generate_series(1, v_k) g
                 where not exists (select from q_data.key_slot s
                                    where s.queue_id = v_check.queue_id and s.key = v_check.key
                                      and s.n = g)
                 order by g
                 limit 1);
        if v_n is null or not q.flow_add_key_slot(v_check.queue_id, v_check.key, v_n, null) then
          v_settled := false;  -- another transaction is making that row: look again later
          exit;
        end if;
      end if;
      -- (no held job could be locked: the row stays free, for step 1)
      exit when q.flow_pass_key_slot(v_check.queue_id, v_check.key, v_n) is null;
      v_moved := v_moved + 1;
    end loop;
    if not v_settled then
      insert into q_data.key_recheck (queue_id, key) values (v_check.queue_id, v_check.key);
    end if;
  end loop;

  -- 3. The queues that have per-key rate slots, read off the index (a few).
  for v_queue in
    with recursive ids as (
      select (select min(r.queue_id) from q_data.key_rate_slot r
               where flow_sweep.queue_id is null or r.queue_id = flow_sweep.queue_id) as id
      union all
      select (select min(r.queue_id) from q_data.key_rate_slot r
               where r.queue_id > ids.id and flow_sweep.queue_id is null)
        from ids
       where ids.id is not null
    )
    select qq.id, qq.key_per
      from ids join q_data.queue qq on qq.id = ids.id
  loop
    -- (a value, not clock_timestamp() in the query: a volatile call is no
    -- index condition, and the scan would read every row inside the window)
    v_cutoff := clock_timestamp() - coalesce(v_queue.key_per, interval '0') - interval '10 seconds';
    delete from q_data.key_rate_slot r
     where r.ctid = any(array(
             select x.ctid from q_data.key_rate_slot x
              where x.queue_id = v_queue.id
                and x.used_at < v_cutoff
              order by x.used_at
              limit flow_sweep.max_slots
                for update skip locked));
  end loop;
  return v_moved;
end
$$;

comment on function q.flow_sweep(integer, integer) is
  'Settles at most max_slots of each kind of flow-control row, one queue or all (NULL): free key slots (passed to a held job of their key, or deleted), keys listed in q_data.key_recheck (their held jobs admitted while the key has room), per-key rate slots stamped more than key_per + 10 s ago (deleted). Returns how many jobs it admitted.';

revoke all on function q.flow_sweep(integer, integer) from public;
