-- Admission of a keyed job (see sql/schema/065_flow.sql): the job gets one of
-- its key's slots now, or is held until a slot passes to it. Called by the
-- admission trigger for each job that becomes due with a concurrency key on a
-- queue with key_concurrency, so enqueue, enqueue_many, retry and promotion
-- of scheduled jobs all go through it.
create or replace function q.flow_take_key_slot(queue_id integer, key text, k integer, job_id bigint)
returns smallint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_n smallint;
begin
  -- The key's slot rows are made on its first use (and after a raised
  -- limit). Two first enqueues of one new key in open transactions wait for
  -- each other here, once; claimers never do.
  if (select count(*) from q_data.key_slot s
       where s.queue_id = flow_take_key_slot.queue_id and s.key = flow_take_key_slot.key
         and s.n <= flow_take_key_slot.k) < flow_take_key_slot.k then
    insert into q_data.key_slot (queue_id, key, n)
    select flow_take_key_slot.queue_id, flow_take_key_slot.key, g
      from generate_series(1, flow_take_key_slot.k) g
    on conflict do nothing;
    -- And the key's rate slots, on a queue with a per-key rate (0007), so
    -- that claims find them made.
    insert into q_data.key_rate_slot (queue_id, key, n)
    select flow_take_key_slot.queue_id, flow_take_key_slot.key, g
      from q_data.queue qq, generate_series(1, qq.key_rate) g
     where qq.id = flow_take_key_slot.queue_id and qq.key_rate is not null
    on conflict do nothing;
  end if;

  -- Jobs already held go first: a newcomer never jumps the key's line.
  if not exists (select from q_data.job h
                  where h.queue_id = flow_take_key_slot.queue_id
                    and h.concurrency_key = flow_take_key_slot.key
                    and h.state = 'h') then
    -- NO KEY UPDATE: compatible with the KEY SHARE pins below, so a held
    -- enqueue in a long transaction never blocks anyone.
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
  end if;

  -- Held. A slot freed before this transaction commits finds no held job to
  -- pass to (ours is not visible yet); the reaper's sweep passes it to us
  -- later. KEY SHARE pins the key's rows so that sweep cannot delete them as
  -- unused meanwhile; it blocks no claim and no completion.
  if current_setting('transaction_isolation') = 'read committed' then
    perform from q_data.key_slot s
      where s.queue_id = flow_take_key_slot.queue_id and s.key = flow_take_key_slot.key
        for key share;
  else
    begin
      perform from q_data.key_slot s
        where s.queue_id = flow_take_key_slot.queue_id and s.key = flow_take_key_slot.key
          for key share;
    exception when serialization_failure then
      -- A slot changed after our snapshot, so the key is in use right now
      -- and its rows stay; the sweep still admits us within a second.
      null;
    end;
  end if;
  return null;
end
$$;

comment on function q.flow_take_key_slot(integer, text, integer, bigint) is
  'Gives job_id a free slot of its concurrency key (its number), or NULL when the key''s k slots are taken or other jobs of the key are already held (the job is then held).';

revoke all on function q.flow_take_key_slot(integer, text, integer, bigint) from public;
