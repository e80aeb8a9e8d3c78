create or replace function q.complete(id bigint, token uuid, result jsonb default null)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_job      q_data.job;
  v_now      timestamptz;
  v_keep     boolean;
  v_awaited  boolean;
  v_ends     boolean;
begin
  -- q.check_claim's test, inline: a nested call with its SET clause per
  -- completion (design.md#few-expressions-per-call).
  if complete.id is null or complete.token is null then
    raise exception 'job id and token must not be null (they come from q.claim)'
      using errcode = '22004';
  end if;
  -- Fencing: only the current claim's token matches. A worker whose claim
  -- was reaped, reclaimed or cancelled changes nothing and learns so: its
  -- result is never stored.
  delete from q_data.job j
   where j.id = complete.id
     and j.state = 'r'
     and j.token = complete.token
  returning j.* into v_job;
  if not found then
    return false;
  end if;
  -- Results (design.md#results-and-dependencies): a row only for a result, or for a job somebody
  -- awaits (its receipt): without either, nothing more is written than
  -- before. keep_result raises 54000 for an over-size result, which undoes
  -- the DELETE above too. Whether the queue keeps completed jobs and whether
  -- anyone awaits this one (an index probe of the usually empty
  -- q_data.result_waiter) come back from the tally's INSERT: one statement
  -- after the DELETE, not three, and the usual completion (no history, no
  -- result, no awaiter) stops at one test (design.md#few-expressions-per-call).
  insert into q_data.tally (queue_id, outcome, n) values (v_job.queue_id, 'c', 1)  -- pgq:observe (design.md#stats-without-a-hot-counter): throughput tally
  returning (select qq.keep_completed from q_data.queue qq where qq.id = v_job.queue_id),
            exists (select from q_data.result_waiter w where w.job_id = v_job.id),
            -- slots, children, parents or a batch: q.job_ended (sql/internal/job_ended.sql)
            v_job.queue_slot is not null or v_job.key_slot is not null or v_job.has_children
            or v_job.batch_id is not null or v_job.parents_left is not null
    into v_keep, v_awaited, v_ends;
  -- One test for the rest: the job's end, then history and result.
  if v_keep or v_awaited or v_ends or complete.result is not null then
    if v_ends then
      perform q.job_ended(v_job, 'c');
    end if;
    v_now := clock_timestamp();
    if v_keep then
      perform q.finish(v_job, 'completed', v_now);
    end if;
    if v_awaited then
      perform q.wake_result_waiters(array[v_job.id]);
      perform q.keep_result(v_job, complete.result, v_now);
    elsif complete.result is not null then
      perform q.keep_result(v_job, complete.result, v_now);
    end if;
  end if;
  return true;
end
$$;

comment on function q.complete(bigint, uuid, jsonb) is
  'Marks a claimed job done: true if (id, token) is the job''s current claim, false (and nothing changes) otherwise. The job leaves q_data.job; q_data.job_history keeps it if the queue has keep_completed. A result (jsonb, at most the queue''s max_result_size bytes: 54000 beyond, and nothing changes) is kept for the queue''s keep_results and read with q.result / q.results; awaiters (q.await_results) are woken.';

revoke all on function q.complete(bigint, uuid, jsonb) from public;
grant execute on function q.complete(bigint, uuid, jsonb) to pgq_worker;
