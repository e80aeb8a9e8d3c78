create or replace function q.job_page(
  queue      text    default null,
  state      text    default 'waiting',
  after      jsonb   default null,
  search     text    default null,
  page_size  integer default 50,
  max_scan   integer default 10000
)
returns setof q.job_page_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue     q_data.queue;
  v_job       record;
  v_scanned   integer := 0;
  v_returned  integer := 0;
  v_needle    text := lower(nullif(job_page.search, ''));
  v_cursor    jsonb;
  v_rows      refcursor;
  v_priority  smallint;
  v_run_at    timestamptz;
  v_finished  timestamptz;
  v_id        bigint;
  v_key       text;
begin
  if job_page.state is null or job_page.state not in ('waiting', 'held', 'scheduled', 'running', 'completed', 'dead', 'cancelled') then
    raise exception 'state must be one of waiting, held, scheduled, running, completed, dead, cancelled; got %',
      coalesce(quote_literal(job_page.state), 'NULL')
      using errcode = '22023';
  end if;
  if job_page.page_size is null or job_page.page_size not between 1 and 1000 then
    raise exception 'page_size must be between 1 and 1000, got %', coalesce(job_page.page_size::text, 'NULL')
      using errcode = '22023';
  end if;
  if job_page.max_scan is null or job_page.max_scan not between 1 and 1000000 then
    raise exception 'max_scan must be between 1 and 1000000, got %', coalesce(job_page.max_scan::text, 'NULL')
      using errcode = '22023';
  end if;
  if job_page.queue is not null then
    v_queue := q.queue_named(job_page.queue);
  elsif job_page.state in ('waiting', 'held', 'scheduled') then
    raise exception 'a % job list needs a queue (it is read in claim order from that queue''s index)', job_page.state
      using errcode = '22023';
  end if;
  if job_page.after is not null and jsonb_typeof(job_page.after) <> 'object' then
    raise exception 'after must be a next_after value from a previous page, got %', left(job_page.after::text, 100)
      using errcode = '22023';
  end if;

  -- Keyset paging on an index for every state, so page 1,000 costs what
  -- page 1 does at 10M jobs: waiting in claim order (job_claim_idx),
  -- scheduled by due time (job_scheduled_idx), running newest first
  -- (job_running_idx), finished newest first (job_history_finished_idx with a
  -- queue, the primary key without). Every bound is an index condition (no
  -- "after is null or ..."): the first page starts from sentinel values.
  -- `search` (case-insensitive text in the payload or the errors) filters
  -- that order: at most max_scan rows are read per call; when the budget runs
  -- out first, a last row with id NULL carries the next_after to go on from.
  -- LIMIT max_scan also tells the planner how far a cursor will be read:
  -- without it, it planned for 10% of a 100,000-job queue (a sort, 1-3 s).
  v_priority := coalesce((job_page.after ->> 'priority')::smallint, 32767);
  v_run_at := coalesce((job_page.after ->> 'run_at')::timestamptz, '-infinity');
  v_finished := coalesce((job_page.after ->> 'finished_at')::timestamptz, 'infinity');
  v_id := coalesce((job_page.after ->> 'id')::bigint,
                   case when job_page.state in ('waiting', 'held', 'scheduled') then 0 else 9223372036854775807 end);
  v_key := coalesce(job_page.after ->> 'concurrency_key', '');
  if job_page.state = 'waiting' then
    open v_rows for
      (select j.id, j.queue_id, j.attempt, j.priority, j.run_at, j.lease_until,
              null::timestamptz as finished_at, j.payload, j.errors, j.concurrency_key
         from q_data.job j
        where j.queue_id = v_queue.id and j.state = 'w' and j.priority = v_priority
          and (j.run_at, j.id) > (v_run_at, v_id)
        order by j.run_at, j.id
        limit job_page.max_scan)
      union all
      (select j.id, j.queue_id, j.attempt, j.priority, j.run_at, j.lease_until, null, j.payload, j.errors, j.concurrency_key
         from q_data.job j
        where j.queue_id = v_queue.id and j.state = 'w' and j.priority < v_priority
        order by j.priority desc, j.run_at, j.id
        limit job_page.max_scan);
  elsif job_page.state = 'held' then
    -- Held jobs (0008, design.md#held-jobs-are-visible: a "waiting 3" whose list was empty)
    -- in admission order per key, keys in order: job_held_idx (queue_id,
    -- concurrency_key, priority desc, id), the rest of the current key's
    -- priority, its lower priorities, then the next keys.
    open v_rows for
      (select j.id, j.queue_id, j.attempt, j.priority, j.run_at, j.lease_until,
              null::timestamptz as finished_at, j.payload, j.errors, j.concurrency_key
         from q_data.job j
        where j.queue_id = v_queue.id and j.state = 'h' and j.concurrency_key = v_key
          and j.priority = v_priority and j.id > v_id
        order by j.id
        limit job_page.max_scan)
      union all
      (select j.id, j.queue_id, j.attempt, j.priority, j.run_at, j.lease_until, null, j.payload, j.errors,
              j.concurrency_key
         from q_data.job j
        where j.queue_id = v_queue.id and j.state = 'h' and j.concurrency_key = v_key and j.priority < v_priority
        order by j.priority desc, j.id
        limit job_page.max_scan)
      union all
      (select j.id, j.queue_id, j.attempt, j.priority, j.run_at, j.lease_until, null, j.payload, j.errors,
              j.concurrency_key
         from q_data.job j
        where j.queue_id = v_queue.id and j.state = 'h' and j.concurrency_key > v_key
        order by j.concurrency_key, j.priority desc, j.id
        limit job_page.max_scan);
  elsif job_page.state = 'scheduled' then
    open v_rows for
      select j.id, j.queue_id, j.attempt, j.priority, j.run_at, j.lease_until, null::timestamptz as finished_at,
             j.payload, j.errors, j.concurrency_key
        from q_data.job j
       where j.queue_id = v_queue.id and j.state = 's' and (j.run_at, j.id) > (v_run_at, v_id)
       order by j.run_at, j.id
       limit job_page.max_scan;
  elsif job_page.state = 'running' then
    open v_rows for
      select j.id, j.queue_id, j.attempt, j.priority, j.run_at, j.lease_until, null::timestamptz as finished_at,
             j.payload, j.errors, j.concurrency_key
        from q_data.job j
       where j.state = 'r' and j.id < v_id and (v_queue.id is null or j.queue_id = v_queue.id)
       order by j.id desc
       limit job_page.max_scan;
  elsif v_queue.id is not null then
    open v_rows for
      select h.id, h.queue_id, h.attempt, h.priority, h.run_at, null::timestamptz as lease_until,
             h.finished_at, h.payload, h.errors, h.concurrency_key
        from q_data.job_history h
       where h.queue_id = v_queue.id and h.state = job_page.state and (h.finished_at, h.id) < (v_finished, v_id)
       order by h.finished_at desc, h.id desc
       limit job_page.max_scan;
  else
    open v_rows for
      select h.id, h.queue_id, h.attempt, h.priority, h.run_at, null::timestamptz as lease_until,
             h.finished_at, h.payload, h.errors, h.concurrency_key
        from q_data.job_history h
       where h.state = job_page.state and h.id < v_id
       order by h.id desc
       limit job_page.max_scan;
  end if;

  loop
    fetch v_rows into v_job;
    exit when not found;
    v_scanned := v_scanned + 1;
    v_cursor := case
      when job_page.state = 'waiting' then jsonb_build_object('priority', v_job.priority, 'run_at', v_job.run_at, 'id', v_job.id)
      when job_page.state = 'held' then jsonb_build_object('concurrency_key', v_job.concurrency_key, 'priority', v_job.priority, 'id', v_job.id)
      when job_page.state = 'scheduled' then jsonb_build_object('run_at', v_job.run_at, 'id', v_job.id)
      when job_page.state = 'running' or v_queue.id is null then jsonb_build_object('id', v_job.id)
      else jsonb_build_object('finished_at', v_job.finished_at, 'id', v_job.id)
    end;
    -- The search reads a bounded part of each job (0008, design.md#a-bounded-search: a
    -- search over ~1 MiB payloads took 9.2 s, and 8 of them starved the
    -- dashboard): the first 65,536 characters of the payload's JSON text, and
    -- nothing of a payload stored larger than 64 KiB (pg_column_size reads
    -- the stored size without fetching the value; turning a 1 MiB payload
    -- into text costs ~5 ms); and the last 65,536 characters of the errors
    -- (the newest attempts; errors are capped at 20 x 4,096 characters).
    -- The stored size is the compressed one: a payload that compresses to
    -- under 64 KiB is still turned into text whole before the cut, so its
    -- cost is bounded by the 1 MiB payload cap (~5 ms), not by 64 KiB; SQL
    -- has no cheap way to read a value's decompressed size.
    if v_needle is null
       or (pg_column_size(v_job.payload) <= 65536
           and strpos(lower(left(v_job.payload::text, 65536)), v_needle) > 0)
       or strpos(lower(right(coalesce(v_job.errors::text, ''), 65536)), v_needle) > 0 then
      v_returned := v_returned + 1;
      return query select v_job.id, (select qq.name from q_data.queue qq where qq.id = v_job.queue_id), job_page.state,
        v_job.attempt::integer, v_job.priority::integer, v_job.run_at, v_job.lease_until, v_job.finished_at,
        v_job.errors -> -1 ->> 'error', v_job.payload, v_cursor;
      exit when v_returned >= job_page.page_size;
    end if;
    if v_scanned >= job_page.max_scan then
      return query select null::bigint, null::text, job_page.state, null::integer, null::integer, null::timestamptz,
        null::timestamptz, null::timestamptz, null::text, null::jsonb, v_cursor;
      exit;
    end if;
  end loop;
  close v_rows;
end
$$;

comment on function q.job_page(text, text, jsonb, text, integer, integer) is
  'One page (page_size 1..1000) of a job list in index order: waiting in claim order, held (by a concurrency key) per key in admission order, scheduled by due time (these three need a queue), running and finished newest first. Pass the last row''s next_after as after for the next page. search filters on text (case-insensitive) in the payload or errors, reading at most max_scan rows per call and of each the first 65,536 characters of the payload''s JSON text (none of a payload stored larger than 64 KiB) and the last 65,536 characters of its errors; if that budget runs out first, the last row has id NULL and the next_after to go on from.';

revoke all on function q.job_page(text, text, jsonb, text, integer, integer) from public;
grant execute on function q.job_page(text, text, jsonb, text, integer, integer) to pgq_viewer;
