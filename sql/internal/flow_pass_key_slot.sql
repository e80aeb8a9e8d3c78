-- A key slot whose job finished goes to the key's next held job in the same
-- transaction (priority first, then enqueue order), or becomes free.
create or replace function q.flow_pass_key_slot(queue_id integer, key text, n smallint)
returns bigint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_k     integer;
  v_ctid  tid;
  v_next  bigint;  -- NULL unless a held job was locked
begin
  select qq.key_concurrency into v_k from q_data.queue qq where qq.id = flow_pass_key_slot.queue_id;
  -- A slot above a lowered limit is not passed on: the key shrinks to it.
  if v_k is not null and flow_pass_key_slot.n <= v_k then
    -- SKIP LOCKED: two finishing jobs of one key pass their slots to two
    -- different held jobs without waiting on each other.
    if current_setting('transaction_isolation') = 'read committed' then
      select h.ctid, h.id into v_ctid, v_next
        from q_data.job h
       where h.queue_id = flow_pass_key_slot.queue_id
         and h.concurrency_key = flow_pass_key_slot.key
         and h.state = 'h'
       order by h.priority desc, h.id
       limit 1
         for update skip locked;
    else
    -- Under REPEATABLE READ a held job admitted after our snapshot raises a
    -- serialization failure when locked: each candidate in its own
    -- subtransaction, and such a one is stepped over (as
    -- q.claim_under_snapshot does for jobs).
    for v_ctid, v_next in
      select h.ctid, h.id
        from q_data.job h
       where h.queue_id = flow_pass_key_slot.queue_id
         and h.concurrency_key = flow_pass_key_slot.key
         and h.state = 'h'
       order by h.priority desc, h.id
    loop
      begin
        perform from q_data.job h where h.ctid = v_ctid and h.state = 'h' for update skip locked;
        exit when found;
      exception when serialization_failure then
        null;
      end;
      v_next := null;
    end loop;
    end if;
  end if;
  update q_data.key_slot s
     set job_id = v_next
   where s.queue_id = flow_pass_key_slot.queue_id
     and s.key = flow_pass_key_slot.key
     and s.n = flow_pass_key_slot.n;
  if v_next is not null then
    update q_data.job j
       set state = 'w',
           key_slot = flow_pass_key_slot.n
     where j.ctid = v_ctid;
    perform q.flow_wake(flow_pass_key_slot.queue_id);
  end if;
  return v_next;
end
$$;

comment on function q.flow_pass_key_slot(integer, text, smallint) is
  'Passes key slot n of (queue_id, key) to the key''s next held job, which becomes waiting (returns its id), or frees the slot (returns NULL).';

revoke all on function q.flow_pass_key_slot(integer, text, smallint) from public;
