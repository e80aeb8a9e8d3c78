create or replace function q.enqueue_many(
  queue         text,
  payloads      jsonb,
  run_at        timestamptz default null,
  priority      integer     default 0,
  max_attempts  integer     default null,
  concurrency_key   text    default null,
  concurrency_keys  text[]  default null
)
returns setof bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now       timestamptz := clock_timestamp();
  v_queue_id  integer;
  v_run_at    timestamptz := coalesce(enqueue_many.run_at, v_now);
  v_count     integer;
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
  -- Only a large array can hold an element over the cap.
  if pg_column_size(enqueue_many.payloads) > 1048576 then
    perform q.check_job_options(e.value, 0, null)
       from jsonb_array_elements(enqueue_many.payloads) e;
  end if;
  -- The nesting cap of q.check_job_options, for every element at once
  -- (an element's level 100 is the array's level 101).
  if jsonb_path_exists(enqueue_many.payloads, 'strict $.**{102}') then
    raise exception 'a payload nests deeper than 100 levels; the cap is 100'
      using errcode = '54000';
  end if;
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

  -- One INSERT: one commit, one NOTIFY, ids in the order of the array.
  return query
    insert into q.job as j (queue_id, payload, run_at, state, priority, max_attempts, concurrency_key)
    -- Each job gets its own run_at when none is given, so the batch keeps
    -- its order in the claim index and its keys stay distinct.
    select v_queue_id, e.value, coalesce(enqueue_many.run_at, clock_timestamp()),
           case when v_run_at > v_now then 's' else 'w' end,
           enqueue_many.priority, enqueue_many.max_attempts,
           coalesce(enqueue_many.concurrency_key, enqueue_many.concurrency_keys[e.ord])
      from jsonb_array_elements(enqueue_many.payloads) with ordinality as e(value, ord)
     order by e.ord
    returning j.id;
end
$$;

comment on function q.enqueue_many(text, jsonb, timestamptz, integer, integer, text, text[]) is
  'Adds one job per element of the JSON array payloads (at most 10000) in one statement and returns their ids in array order. concurrency_key gives every job that key, concurrency_keys[i] gives payloads[i] its own (same length; NULL = none).';

revoke all on function q.enqueue_many(text, jsonb, timestamptz, integer, integer, text, text[]) from public;
grant execute on function q.enqueue_many(text, jsonb, timestamptz, integer, integer, text, text[]) to pgq_producer;
