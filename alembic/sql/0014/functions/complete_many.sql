create or replace function q.complete_many(ids bigint[], tokens uuid[], results jsonb[] default null)
returns setof bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_job       q_data.job;
  v_queue_id  integer;
  v_keep      boolean;
  v_now       timestamptz := clock_timestamp();
  v_done      bigint[] := '{}';
  v_queues    integer[] := '{}';  -- pgq:observe (design.md#stats-without-a-hot-counter): the completed jobs' queues, for the tally
  v_attempts  smallint[];
  v_progress  jsonb[];
  v_awaited   bigint[];
  v_results   jsonb;
  v_result    jsonb;
  v_ended     q_data.job[];
begin
  perform q.check_claims(complete_many.ids, complete_many.tokens);
  if complete_many.results is not null and cardinality(complete_many.results) <> cardinality(complete_many.ids) then
    raise exception 'results must be as long as ids (one per job, NULL for none), got % and %',
      cardinality(complete_many.results), cardinality(complete_many.ids)
      using errcode = '22023';
  end if;
  -- The usual case, no results given and no queue keeps completed jobs: one
  -- set-based DELETE, then one probe for awaiters (design.md#results-and-dependencies).
  if complete_many.results is null and not exists (select from q_data.queue qq where qq.keep_completed) then
    with gone as (
      delete from q_data.job j
       using q.current_claims(complete_many.ids, complete_many.tokens) as c
       where j.ctid = c.job_ctid
         and j.token = c.token
      returning j.id, j.queue_id, j.attempt, j.progress,
                -- the whole row only for a job with slots, children, parents or a batch
                j.queue_slot is not null or j.key_slot is not null or j.has_children
                or j.batch_id is not null or j.parents_left is not null as needs_end,
                case when j.queue_slot is not null or j.key_slot is not null or j.has_children
                          or j.batch_id is not null or j.parents_left is not null then j end as ended
    ), tallied as (  -- pgq:observe (design.md#stats-without-a-hot-counter): throughput tally, in the same statement
      insert into q_data.tally (queue_id, outcome, n) select g.queue_id, 'c', count(*) from gone g group by g.queue_id
    )
    select coalesce(array_agg(g.id), '{}'), array_agg(g.queue_id), array_agg(g.attempt), array_agg(g.progress),
           array_agg(g.ended) filter (where g.needs_end)  -- a row value IS NOT NULL only when every field is
      into v_done, v_queues, v_attempts, v_progress, v_ended
      from gone g;
    if v_ended is not null then
      foreach v_job in array v_ended loop
        perform q.job_ended(v_job, 'c');  -- sql/internal/job_ended.sql
      end loop;
    end if;
    v_awaited := q.wake_result_waiters(v_done);
    if cardinality(v_awaited) > 0 then
      -- Receipts, so that the awaiters read 'completed' (q.results).
      insert into q_data.job_result (id, queue_id, result, progress, attempt, finished_at)
      select d.id, d.queue_id, null, d.progress, d.attempt, v_now
        from unnest(v_done, v_queues, v_attempts, v_progress) as d(id, queue_id, attempt, progress)
       where d.id = any(v_awaited)
      on conflict (id) do nothing;
    end if;
    v_queues := '{}';
  else
    -- Each job's result by id: one pass over the arrays, not a search per job.
    if complete_many.results is not null then
      select jsonb_object_agg(r.id::text, r.result) into v_results
        from unnest(complete_many.ids, complete_many.results) as r(id, result)
       where r.result is not null;
    end if;
    for v_job in
      delete from q_data.job j
       using q.current_claims(complete_many.ids, complete_many.tokens) as c
       where j.ctid = c.job_ctid
         and j.token = c.token
      returning j.*
    loop
      if v_job.queue_slot is not null or v_job.key_slot is not null or v_job.has_children
         or v_job.batch_id is not null or v_job.parents_left is not null then
        perform q.job_ended(v_job, 'c');  -- sql/internal/job_ended.sql
      end if;
      if v_job.queue_id is distinct from v_queue_id then
        v_queue_id := v_job.queue_id;
        select qq.keep_completed into v_keep from q_data.queue qq where qq.id = v_queue_id;
      end if;
      if v_keep then
        perform q.finish(v_job, 'completed', v_now);
      end if;
      v_result := v_results -> v_job.id::text;
      -- An over-size result raises 54000 here and the whole call changes nothing.
      if cardinality(q.wake_result_waiters(array[v_job.id])) > 0 or v_result is not null then
        perform q.keep_result(v_job, v_result, v_now);
      end if;
      v_done := v_done || v_job.id;
      v_queues := v_queues || v_job.queue_id;
    end loop;
    perform q.tally(v_queues, 'c');  -- pgq:observe (design.md#stats-without-a-hot-counter); the stragglers below tally in q.complete
  end if;

  -- A claim whose row was updated while this statement waited for it (a
  -- heartbeat, say) has a new row version that its ctid no longer names, so
  -- the DELETE passed it by: those, and stale claims, go one by one.
  if cardinality(v_done) < cardinality(complete_many.ids) then
    v_done := v_done || array(
      select c.id from unnest(complete_many.ids, complete_many.tokens, complete_many.results) as c(id, token, result)
       where c.id <> all(v_done) and c.token is not null and q.complete(c.id, c.token, c.result));
  end if;
  return query select unnest(v_done);
end
$$;

comment on function q.complete_many(bigint[], uuid[], jsonb[]) is
  'q.complete for many claims in one statement, with results[i] (or NULL) for ids[i]; returns the ids that were completed (the others were not the current claim). An over-size result raises 54000 and nothing changes.';

revoke all on function q.complete_many(bigint[], uuid[], jsonb[]) from public;
grant execute on function q.complete_many(bigint[], uuid[], jsonb[]) to pgq_worker;
