-- Admission of a keyed job (see sql/schema/065_flow.sql): the job gets one of
-- its key's slots now, or is held until a slot passes to it. Called by the
-- admission trigger for each job that becomes due with a concurrency key on a
-- queue with key_concurrency, so enqueue, enqueue_many, retry and promotion
-- of scheduled jobs all go through it.
--
-- Slot rows are made here one at a time (revision 0008), never waiting on
-- another producer: a free row is taken SKIP LOCKED, a new one is made by
-- q.flow_add_key_slot (gives up after 10 ms on a row another open transaction
-- is making). A job held without a slot it is sure to be passed lists its key
-- in q_data.key_recheck, which the reaper's sweep reads.
create or replace function q.flow_take_key_slot(queue_id integer, key text, k integer, job_id bigint)
returns smallint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_n      smallint;
  v_rows   integer;
begin
  -- Jobs already held go first: a newcomer never jumps the key's line (and
  -- the key is at its limit, or listed for the sweep, already).
  if not exists (select from q_data.job h
                  where h.queue_id = flow_take_key_slot.queue_id
                    and h.concurrency_key = flow_take_key_slot.key
                    and h.state = 'h') then
    -- 1. A free row (freed by a finished job, not swept yet).
    if current_setting('transaction_isolation') = 'read committed' then
      select s.n into v_n
        from q_data.key_slot s
       where s.queue_id = flow_take_key_slot.queue_id
         and s.key = flow_take_key_slot.key
         and s.n <= flow_take_key_slot.k
         and s.job_id is null
       order by s.n
       limit 1
         for no key update skip locked;
    else
      -- REPEATABLE READ: a slot taken after our snapshot raises a
      -- serialization failure when locked; step over it.
      for v_n in
        select s.n from q_data.key_slot s
         where s.queue_id = flow_take_key_slot.queue_id
           and s.key = flow_take_key_slot.key
           and s.n <= flow_take_key_slot.k
           and s.job_id is null
         order by s.n
      loop
        begin
          perform from q_data.key_slot s
            where s.queue_id = flow_take_key_slot.queue_id and s.key = flow_take_key_slot.key
              and s.n = v_n and s.job_id is null
              for no key update skip locked;
          exit when found;
        exception when serialization_failure then
          null;
        end;
        v_n := null;
      end loop;
    end if;
    if v_n is not null then
      update q_data.key_slot s
         set job_id = flow_take_key_slot.job_id
       where s.queue_id = flow_take_key_slot.queue_id
         and s.key = flow_take_key_slot.key
         and s.n = v_n;
      return v_n;
    end if;

    -- 2. A new row, while the key has fewer than k: the lowest free numbers,
    -- at most three tries (each one another producer is making costs 10 ms).
    select count(*) into v_rows
      from q_data.key_slot s
     where s.queue_id = flow_take_key_slot.queue_id and s.key = flow_take_key_slot.key
       and s.n <= flow_take_key_slot.k;
    if v_rows < flow_take_key_slot.k then
      for v_n in
        select g::smallint
          from generate_series(1, flow_take_key_slot.k) g
         where not exists (select from q_data.key_slot s
                            where s.queue_id = flow_take_key_slot.queue_id
                              and s.key = flow_take_key_slot.key and s.n = g)
         order by g
         limit 3
      loop
        if q.flow_add_key_slot(flow_take_key_slot.queue_id, flow_take_key_slot.key, v_n, flow_take_key_slot.job_id) then
          return v_n;
        end if;
      end loop;
    end if;
  end if;

  -- Held. A slot freed (or swept away) before this transaction commits finds
  -- no held job to pass to, and a row another transaction was making may never
  -- commit: the key is listed for the reaper's sweep, with this job (visible
  -- together), once per transaction. A row listed by another transaction does
  -- not do: the sweep may be reading it right now, before our job is visible.
  if not exists (select from q_data.key_recheck r
                  where r.queue_id = flow_take_key_slot.queue_id and r.key = flow_take_key_slot.key
                    and r.xact = pg_current_xact_id()) then
    insert into q_data.key_recheck (queue_id, key)
    values (flow_take_key_slot.queue_id, flow_take_key_slot.key);
  end if;
  return null;
end
$$;

comment on function q.flow_take_key_slot(integer, text, integer, bigint) is
  'Gives job_id a slot of its concurrency key (a free one, or a new one while the key has fewer than k; its number), or NULL when the key''s k slots are taken, other jobs of the key are already held, or another open transaction is making the slot (the job is then held and the key listed in q_data.key_recheck). Never waits more than 10 ms.';

revoke all on function q.flow_take_key_slot(integer, text, integer, bigint) from public;
