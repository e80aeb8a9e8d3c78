create or replace function q.enqueue(
  queue         text,
  payload       jsonb,
  run_at        timestamptz default null,
  priority      integer     default 0,
  max_attempts  integer     default null,
  dedup_key     text        default null,
  concurrency_key  text     default null
)
returns bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- clock_timestamp, not now(): jobs enqueued one by one in one transaction
  -- keep their order instead of tying on the transaction start.
  v_now       timestamptz := clock_timestamp();
  v_queue_id  integer;
  v_run_at    timestamptz := coalesce(enqueue.run_at, v_now);
  v_id        bigint;
begin
  -- One test for every argument rule on the way through; only input that
  -- fails it goes through the checks that name the problem (the payload's
  -- in q.check_job_options, the others below). Until 0013 every enqueue made
  -- the nested call (a plpgsql call with a SET clause) and its tests one by
  -- one: 74.6 -> 64.4 us per enqueue (design.md#few-expressions-per-call).
  -- A compressed payload (read from a table column) always takes the long
  -- way: its size is measured decompressed there.
  if enqueue.payload is null or enqueue.priority is null or enqueue.priority not between -32768 and 32767
     or enqueue.max_attempts not between 1 and 32767 or not isfinite(enqueue.run_at)
     or octet_length(enqueue.dedup_key) not between 1 and 512
     or pg_column_compression(enqueue.payload) is not null or pg_column_size(enqueue.payload) > 1048576
     or jsonb_path_exists(enqueue.payload, 'strict $.**{100} ? (@.type() == "array" || @.type() == "object")') then
    perform q.check_job_options(enqueue.payload, enqueue.priority, enqueue.max_attempts);
    -- 'infinity' would park a job (and squat its dedup key) forever;
    -- '-infinity' made q.stats() fail for every admin (22008).
    if not isfinite(enqueue.run_at) then
      raise exception 'run_at must be a finite timestamp, got %', enqueue.run_at
        using errcode = '22023';
    end if;
    if octet_length(enqueue.dedup_key) not between 1 and 512 then
      raise exception 'dedup_key must be 1 to 512 bytes, got %', octet_length(enqueue.dedup_key)
        using errcode = '22023';
    end if;
  end if;
  -- Most jobs have no key: skip the nested call (a plpgsql call with a SET
  -- clause costs a few microseconds of a ~25 us enqueue).
  if enqueue.concurrency_key is not null then
    perform q.check_concurrency_key(enqueue.concurrency_key);
  end if;
  -- The queue's row, held against q.reap's deletion of idle queues until we
  -- commit: q.ensure_queue's protocol, inline (a nested call costs ~4 us).
  if current_setting('transaction_isolation') = 'read committed'
     and pg_try_advisory_xact_lock_shared(1885827329, hashtext(enqueue.queue) & 15) then
    select qq.id into v_queue_id from q_data.queue qq where qq.name = enqueue.queue;
  else
    select qq.id into v_queue_id from q_data.queue qq where qq.name = enqueue.queue for key share;
  end if;
  if not found then
    v_queue_id := (q.ensure_queue(enqueue.queue)).id;
  end if;

  -- Without a key, a plain INSERT: ON CONFLICT's speculative insertion
  -- would cost every enqueue a little.
  if enqueue.dedup_key is null then
    insert into q_data.job as j (queue_id, payload, run_at, state, priority, max_attempts, concurrency_key)
    values (v_queue_id, enqueue.payload, v_run_at,
            case when v_run_at > v_now then 's' else 'w' end,
            enqueue.priority, enqueue.max_attempts, enqueue.concurrency_key)
    returning j.id into v_id;
    return v_id;
  end if;

  loop
    insert into q_data.job as j (queue_id, payload, run_at, state, priority, max_attempts, dedup_key, concurrency_key)
    values (v_queue_id, enqueue.payload, v_run_at,
            case when v_run_at > v_now then 's' else 'w' end,
            enqueue.priority, enqueue.max_attempts, enqueue.dedup_key, enqueue.concurrency_key)
    -- (use_column above: ON CONFLICT names index columns, not parameters)
    on conflict (queue_id, dedup_key) where dedup_key is not null do nothing
    returning j.id into v_id;
    exit when v_id is not null;

    -- A job with this key is waiting, scheduled or running: that is the job.
    select j.id into v_id
      from q_data.job j
     where j.queue_id = v_queue_id and j.dedup_key = enqueue.dedup_key;
    exit when v_id is not null;
    -- It finished between the two statements; insert again.
  end loop;
  return v_id;
end
$$;

comment on function q.enqueue(text, jsonb, timestamptz, integer, integer, text, text) is
  'Adds a job and returns its id. run_at schedules it for later; higher priority runs first; max_attempts overrides the queue''s; while a job with the same queue and dedup_key is waiting, scheduled or running, returns that job''s id instead; concurrency_key (1 to 512 bytes) puts the job under the queue''s key_concurrency / ordered limit. Commits with the caller''s transaction.';

revoke all on function q.enqueue(text, jsonb, timestamptz, integer, integer, text, text) from public;
grant execute on function q.enqueue(text, jsonb, timestamptz, integer, integer, text, text) to pgq_producer;
