create or replace function q.fail(
  id         bigint,
  token      uuid,
  error      text,
  retry_in   interval default null,
  retryable  boolean  default true
)
returns text
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now       timestamptz := clock_timestamp();
  v_ctid      tid;
  v_job       q_data.job;
  v_queue     q_data.queue;
  v_failures  integer;
  v_delay     interval;
begin
  perform q.check_claim(fail.id, fail.token);
  if fail.retry_in < interval '0' then
    raise exception 'retry_in must not be negative, got %', fail.retry_in
      using errcode = '22023';
  end if;

  select j.* into v_job
    from q_data.job j
   where j.id = fail.id and j.state = 'r' and j.token = fail.token
     for update;
  if not found then
    return 'lost';
  end if;
  -- The row is locked by us now, so its ctid is stable until we commit.
  select j.ctid into v_ctid
    from q_data.job j
   where j.id = fail.id and j.state = 'r' and j.token = fail.token;
  select * into v_queue from q_data.queue qq where qq.id = v_job.queue_id;

  -- Bounded (0003): newest 20 entries, 4,096 characters each (q.append_error, q.error_entry).
  v_job.errors := q.append_error(v_job.errors, q.error_entry(v_job.attempt, fail.error, false, v_now));
  v_failures := v_job.attempt - coalesce(v_job.crashes, 0);

  if not coalesce(fail.retryable, true)
     or v_failures >= coalesce(v_job.max_attempts, v_queue.max_attempts) then
    delete from q_data.job j where j.ctid = v_ctid;
    -- Its end, for its slots, children and batch (sql/internal/job_ended.sql).
    if v_job.queue_slot is not null or v_job.key_slot is not null or v_job.has_children
       or v_job.batch_id is not null or v_job.parents_left is not null then
      perform q.job_ended(v_job, 'd');
    end if;
    perform q.finish(v_job, 'dead', v_now);
    return 'dead';
  end if;

  v_delay := coalesce(fail.retry_in, q.backoff(v_failures, v_queue.backoff_base, v_queue.backoff_max));
  update q_data.job j
     set state = case when v_delay > interval '0' then 's' else 'w' end,
         run_at = v_now + v_delay,
         token = null,
         lease_until = null,
         owner = null,
         queue_slot = null,
         errors = v_job.errors
   where j.ctid = v_ctid;
  if v_job.queue_slot is not null then
    perform q.flow_free_queue_slot(v_job.queue_id, v_job.queue_slot);
  end if;
  if v_delay <= interval '0' then
    perform q.notify_queues(array[v_job.queue_id]);
  end if;
  insert into q_data.tally (queue_id, outcome, n) values (v_job.queue_id, 'f', 1);  -- pgq:observe (design.md#stats-without-a-hot-counter): throughput tally
  return 'retry';
end
$$;

comment on function q.fail(bigint, uuid, text, interval, boolean) is
  'Records a failed attempt of a claimed job. Returns ''retry'' (runs again after exponential backoff with jitter, or after retry_in), ''dead'' (max_attempts spent or retryable => false; moved to q_data.job_history with every error), or ''lost'' when (id, token) is not the current claim (nothing changes).';

revoke all on function q.fail(bigint, uuid, text, interval, boolean) from public;
grant execute on function q.fail(bigint, uuid, text, interval, boolean) to pgq_worker;
