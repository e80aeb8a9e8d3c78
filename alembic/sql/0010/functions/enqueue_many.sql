create or replace function q.enqueue_many(
  queue            text,
  payloads         jsonb,
  run_at           timestamptz default null,
  priority         integer     default 0,
  max_attempts     integer     default null,
  dedup_keys       text[]      default null,
  idempotency_key  text        default null,
  concurrency_key  text        default null,
  concurrency_keys text[]      default null
)
returns setof bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  v_now       timestamptz := clock_timestamp();
  v_queue_id  integer;
  v_run_at    timestamptz := coalesce(enqueue_many.run_at, v_now);
  v_count     integer;
  v_ids       bigint[];
  v_id        bigint;
  v_key       text;
  v_element   record;
  v_bytes     integer;
begin
  if enqueue_many.payloads is null or jsonb_typeof(enqueue_many.payloads) <> 'array' then
    raise exception 'payloads must be a JSON array, got %', coalesce(jsonb_typeof(enqueue_many.payloads), 'NULL')
      using errcode = '22023';
  end if;
  v_count := jsonb_array_length(enqueue_many.payloads);
  if v_count > 10000 then
    raise exception 'payloads has % elements; at most 10000 per call', v_count
      using errcode = '54000';
  end if;
  perform q.check_job_options('{}', enqueue_many.priority, enqueue_many.max_attempts);
  -- 'infinity' would park a job forever, '-infinity' breaks q.stats (22008).
  if not isfinite(enqueue_many.run_at) then
    raise exception 'run_at must be a finite timestamp, got %', enqueue_many.run_at
      using errcode = '22023';
  end if;
  if enqueue_many.dedup_keys is not null then
    if coalesce(cardinality(enqueue_many.dedup_keys), 0) <> v_count then
      raise exception 'dedup_keys must have one element per payload (% payloads), got %',
        v_count, coalesce(cardinality(enqueue_many.dedup_keys), 0)
        using errcode = '22023';
    end if;
    select k into v_key from unnest(enqueue_many.dedup_keys) k
     where k is not null and octet_length(k) not between 1 and 512 limit 1;
    if found then
      raise exception 'each dedup key must be 1 to 512 bytes, got %', octet_length(v_key)
        using errcode = '22023';
    end if;
  end if;
  if enqueue_many.idempotency_key is not null and octet_length(enqueue_many.idempotency_key) not between 1 and 512 then
    raise exception 'idempotency_key must be 1 to 512 bytes, got %', octet_length(enqueue_many.idempotency_key)
      using errcode = '22023';
  end if;
  -- A per-call byte budget: one call's payloads are built, checked and
  -- inserted in one backend's memory (0007: 250 payloads of 1 MiB took 36 s
  -- at a 1.29 GB backend peak). 64 MiB holds 10,000 payloads of 6 KiB, or 64
  -- at the per-job cap; more belongs in several calls.
  v_bytes := q.payload_size(enqueue_many.payloads);
  if v_bytes > 67108864 then
    raise exception 'payloads total % bytes; at most 67108864 (64 MiB) per call: split it into several calls', v_bytes
      using errcode = '54000';
  end if;
  if v_bytes > 1048576 then
    -- Only a large array can hold an element over the per-job cap
    -- (decompressed: an array read from a table column arrives compressed):
    -- each is checked, size and depth, on its own (the depth walk below over
    -- the whole array would be a second pass over every byte).
    perform q.check_job_options(e.value, 0, null)
       from jsonb_array_elements(enqueue_many.payloads) e;
  -- The nesting cap of q.check_job_options, for every element at once
  -- (an element's level 100 is the array's level 101).
  elsif jsonb_path_exists(enqueue_many.payloads,
                          'strict $.**{101} ? (@.type() == "array" || @.type() == "object")') then
    raise exception 'a payload nests deeper than 100 levels; the cap is 100'
      using errcode = '54000';
  end if;
  -- Flow control (design.md#flow-control-without-a-hot-row): one key for the whole call, or one per
  -- element (concurrency_keys[i] for payloads[i]; NULL elements: no key).
  if enqueue_many.concurrency_key is not null and enqueue_many.concurrency_keys is not null then
    raise exception 'pass concurrency_key (one for all) or concurrency_keys (one per payload), not both'
      using errcode = '22023';
  end if;
  if enqueue_many.concurrency_keys is not null then
    if coalesce(array_length(enqueue_many.concurrency_keys, 1), 0) <> v_count
       or array_ndims(enqueue_many.concurrency_keys) > 1 then
      raise exception 'concurrency_keys has % elements, payloads %; they must match',
        coalesce(array_length(enqueue_many.concurrency_keys, 1), 0), v_count
        using errcode = '22023';
    end if;
    perform q.check_concurrency_key(k) from unnest(enqueue_many.concurrency_keys) k;
  end if;
  perform q.check_concurrency_key(enqueue_many.concurrency_key);
  v_queue_id := (q.ensure_queue(enqueue_many.queue)).id;

  if enqueue_many.dedup_keys is null and enqueue_many.idempotency_key is null then
    -- One INSERT: one commit, one NOTIFY, ids in the order of the array.
    -- Each job gets its own run_at when none is given, so the batch keeps
    -- its order in the claim index and its keys stay distinct.
    return query
      insert into q_data.job as j (queue_id, payload, run_at, state, priority, max_attempts, concurrency_key)
      select v_queue_id, e.value, coalesce(enqueue_many.run_at, clock_timestamp()),
             case when v_run_at > v_now then 's' else 'w' end,
             enqueue_many.priority, enqueue_many.max_attempts,
             coalesce(enqueue_many.concurrency_key, enqueue_many.concurrency_keys[e.ord])
        from jsonb_array_elements(enqueue_many.payloads) with ordinality as e(value, ord)
       order by e.ord
      returning j.id;
    return;
  end if;

  -- The whole call, once: the first call with a key writes a receipt before
  -- it inserts (a concurrent call with the same key waits on the receipt's
  -- primary key and then reads it); a retry finds the receipt and returns
  -- the same ids, whether those jobs still wait, run or are long finished.
  if enqueue_many.idempotency_key is not null then
    insert into q_data.enqueue_receipt as r (queue_id, key, ids)
    values (v_queue_id, enqueue_many.idempotency_key, '{}')
    on conflict (queue_id, key) do nothing;
    if not found then
      select r.ids into v_ids
        from q_data.enqueue_receipt r
       where r.queue_id = v_queue_id and r.key = enqueue_many.idempotency_key;
      if cardinality(v_ids) <> v_count then
        raise exception 'idempotency_key % was used for a call of % jobs, this one has %',
          quote_literal(enqueue_many.idempotency_key), cardinality(v_ids), v_count
          using errcode = '22023';
      end if;
      return query select u.id from unnest(v_ids) with ordinality as u(id, ord) order by u.ord;
      return;
    end if;
  end if;

  if enqueue_many.dedup_keys is null then
    -- The one INSERT above, its ids kept for the receipt.
    with inserted as (
      insert into q_data.job as j (queue_id, payload, run_at, state, priority, max_attempts, concurrency_key)
      select v_queue_id, e.value, coalesce(enqueue_many.run_at, clock_timestamp()),
             case when v_run_at > v_now then 's' else 'w' end,
             enqueue_many.priority, enqueue_many.max_attempts,
             coalesce(enqueue_many.concurrency_key, enqueue_many.concurrency_keys[e.ord])
        from jsonb_array_elements(enqueue_many.payloads) with ordinality as e(value, ord)
       order by e.ord
      returning j.id
    )
    -- (RETURNING yields the rows in the order they were inserted)
    select coalesce(array_agg(i.id), '{}') into v_ids from inserted i;
  else
    -- Per element, as q.enqueue does with its dedup_key: a live job with the
    -- key (waiting, scheduled or running, or made earlier in this call)
    -- answers with its id instead of a new job.
    v_ids := '{}';
    for v_element in
      select e.value, k.key, e.ord
        from jsonb_array_elements(enqueue_many.payloads) with ordinality as e(value, ord)
        join unnest(enqueue_many.dedup_keys) with ordinality as k(key, ord) on k.ord = e.ord
       order by e.ord
    loop
      v_id := null;
      loop
        insert into q_data.job as j (queue_id, payload, run_at, state, priority, max_attempts, dedup_key, concurrency_key)
        values (v_queue_id, v_element.value, coalesce(enqueue_many.run_at, clock_timestamp()),
                case when v_run_at > v_now then 's' else 'w' end,
                enqueue_many.priority, enqueue_many.max_attempts, v_element.key,
                coalesce(enqueue_many.concurrency_key, enqueue_many.concurrency_keys[v_element.ord]))
        -- (use_column above: ON CONFLICT names index columns, not variables)
        on conflict (queue_id, dedup_key) where dedup_key is not null do nothing
        returning j.id into v_id;
        exit when v_id is not null;
        select j.id into v_id
          from q_data.job j
         where j.queue_id = v_queue_id and j.dedup_key = v_element.key;
        exit when v_id is not null;
        -- It finished between the two statements; insert again.
      end loop;
      v_ids := v_ids || v_id;
    end loop;
  end if;

  if enqueue_many.idempotency_key is not null then
    update q_data.enqueue_receipt r
       set ids = v_ids
     where r.queue_id = v_queue_id and r.key = enqueue_many.idempotency_key;
  end if;
  return query select u.id from unnest(v_ids) with ordinality as u(id, ord) order by u.ord;
end
$$;

comment on function q.enqueue_many(text, jsonb, timestamptz, integer, integer, text[], text, text, text[]) is
  'Adds one job per element of the JSON array payloads (at most 10000) and returns their ids in array order. dedup_keys (one per element, NULL = none): an element whose key a live job of the queue holds returns that job''s id instead. idempotency_key: a repeated call with the same key within 24 hours returns the first call''s ids and adds nothing (for retrying a call whose commit reply was lost). concurrency_key gives every job that key, concurrency_keys[i] gives payloads[i] its own (same length; NULL = none).';

revoke all on function q.enqueue_many(text, jsonb, timestamptz, integer, integer, text[], text, text, text[]) from public;
grant execute on function q.enqueue_many(text, jsonb, timestamptz, integer, integer, text[], text, text, text[]) to pgq_producer;
