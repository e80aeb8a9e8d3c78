create or replace function q.forget_idle_queues(max_rows integer, now timestamptz)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_after    integer;
  v_last     integer;
  v_running  integer[];
  v_queue    record;
  v_deleted  integer := 0;
begin
  -- Up to 0007 (design.md#queue-names-cost-nothing-when-idle) every name a producer ever used stayed a q_data.queue
  -- row. An IDLE queue is deleted here: settings all default, no job, no
  -- history, no schedule, no slot rows, no enqueue_many receipt, no outcome
  -- still in q_data.throughput (kept a day) or q_data.tally, and the row is at
  -- least an hour old. A later enqueue to the name makes it again.
  --
  -- Only at READ COMMITTED: each statement below must see what committed
  -- before it (an older snapshot could miss a job that committed meanwhile).
  if current_setting('transaction_isolation') <> 'read committed' then
    return 0;
  end if;

  -- Bounded per call: at most max_rows queue rows are looked at, in id order
  -- from where the last call stopped (q_data.reaper_turn.idle_queue_after; the
  -- caller holds that row's lock), wrapping around at the end.
  select t.idle_queue_after into v_after from q_data.reaper_turn t;
  v_running := array(select distinct j.queue_id from q_data.job j where j.state = 'r');
  v_last := null;
  for v_queue in
    with page as (
      select qq.id, qq.name, qq.created_at, qq.paused, qq.lease, qq.max_attempts, qq.max_crashes,
             qq.backoff_base, qq.backoff_max, qq.keep_completed, qq.retention, qq.concurrency,
             qq.key_concurrency, qq.ordered, qq.rate, qq.key_rate, qq.keep_results, qq.max_result_size
        from q_data.queue qq
       where qq.id > coalesce(v_after, 0)
       order by qq.id
       limit forget_idle_queues.max_rows
    )
    select p.id, p.name
      from page p
     where p.created_at < forget_idle_queues.now - interval '1 hour'
       -- The defaults (sql/schema/030_tables.sql, 065_flow.sql, 075_key_rate.sql);
       -- the same test as q.stats, which lists a queue with other settings.
       and not (p.paused or p.lease <> interval '5 minutes' or p.max_attempts <> 5 or p.max_crashes <> 3
                or p.backoff_base <> interval '1 second' or p.backoff_max <> interval '1 hour'
                or p.keep_completed or p.retention <> interval '7 days'
                or p.concurrency is not null or p.key_concurrency is not null or p.ordered
                or p.rate is not null or p.key_rate is not null
                -- results (design.md#results-and-dependencies, sql/schema/095_results.sql)
                or p.keep_results <> interval '1 day' or p.max_result_size <> 1048576)
       and not p.id in (select unnest(v_running))
       and not exists (select from q_data.job j where j.queue_id = p.id and j.state = 'w')
       and not exists (select from q_data.job j where j.queue_id = p.id and j.state = 's')
       and not exists (select from q_data.job j where j.queue_id = p.id and j.state = 'h')
       and not exists (select from q_data.job_history x where x.queue_id = p.id)
       and not exists (select from q_data.job_result x where x.queue_id = p.id)
       and not exists (select from q_data.throughput t where t.queue_id = p.id)
       and not exists (select from q_data.schedule sc where sc.queue_id = p.id)
       and not exists (select from q_data.enqueue_receipt r where r.queue_id = p.id)
       and not exists (select from q_data.queue_slot s where s.queue_id = p.id)
       and not exists (select from q_data.key_slot s where s.queue_id = p.id)
       and not exists (select from q_data.rate_slot s where s.queue_id = p.id)
       and not exists (select from q_data.key_rate_slot s where s.queue_id = p.id)
    union all
    -- Where the page ended, even if none of it was idle; 0 (start again) when
    -- it reached the end.
    select case when count(*) < forget_idle_queues.max_rows then 0 else max(p.id) end, null from page p
  loop
    if v_queue.name is null then
      v_last := v_queue.id;
      continue;
    end if;
    -- The race with an enqueue into this name that has not committed yet
    -- (0007's q.delete_queue lost such a job: design.md#queue-names-cost-nothing-when-idle): q.enqueue and
    -- q.enqueue_many hold a SHARED advisory lock on the name's bucket from
    -- before they read the queue row until they commit, or, when they cannot
    -- get it, lock the row itself FOR KEY SHARE. Taking the bucket EXCLUSIVELY
    -- and the row FOR UPDATE, without waiting, means no such enqueue is in
    -- flight; and one that starts later waits for our commit and then finds
    -- the row gone (it makes it again). Busy: skip, the next pass retries.
    continue when not pg_try_advisory_xact_lock(1885827329, hashtext(v_queue.name) & 15);
    perform from q_data.queue qq where qq.id = v_queue.id for update skip locked;
    continue when not found;
    -- Again, now that no enqueue is in flight: what committed meanwhile counts.
    -- One probe per state, each on its partial index (no index has queue_id
    -- first for every state: "where queue_id = $1" alone is a scan of q_data.job).
    continue when exists (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'w')
      or exists (select from q_data.job j where j.queue_id = v_queue.id and j.state = 's')
      or exists (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'h')
      or exists (select from q_data.job j where j.state = 'r' and j.queue_id = v_queue.id)
      or exists (select from q_data.job_history x where x.queue_id = v_queue.id)
      or exists (select from q_data.tally t where t.queue_id = v_queue.id)
      or exists (select from q_data.throughput t where t.queue_id = v_queue.id)
      or exists (select from q_data.schedule sc where sc.queue_id = v_queue.id)
      or exists (select from q_data.enqueue_receipt r where r.queue_id = v_queue.id);
    delete from q_data.throughput_total t where t.queue_id = v_queue.id;
    delete from q_data.queue qq where qq.id = v_queue.id;
    v_deleted := v_deleted + 1;
  end loop;

  -- Wrap around after the last row.
  update q_data.reaper_turn t set idle_queue_after = coalesce(v_last, 0)
   where t.idle_queue_after is distinct from coalesce(v_last, 0);
  return v_deleted;
end
$$;

comment on function q.forget_idle_queues(integer, timestamptz) is
  'Deletes idle queues (default settings; no job, history, schedule, slot rows or receipts; no outcome in the last day; created over an hour ago), looking at up to max_rows queue rows per call from where the last call stopped; returns how many it deleted. Skips a queue an enqueue may be using right now. Called by q.reap.';

revoke all on function q.forget_idle_queues(integer, timestamptz) from public;
