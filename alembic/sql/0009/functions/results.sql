create or replace function q.results(ids bigint[])
returns table (id bigint, queue text, state text, result jsonb, last_error text, attempts integer,
               finished_at timestamptz, progress jsonb)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_id     bigint;
  v_rest   bigint[] := '{}';
  v_res    q_data.job_result;
  v_done   q_data.job_history;
  v_job    q_data.job;
begin
  if results.ids is null then
    raise exception 'ids must not be null' using errcode = '22004';
  end if;
  if cardinality(results.ids) > 10000 then
    raise exception 'at most 10000 ids per call, got %', cardinality(results.ids)
      using errcode = '54000';
  end if;
  -- Finished and running jobs are found by index, one probe each: the
  -- result (completed with a result, or awaited), the history (dead,
  -- cancelled, completed when the queue keeps them), the running claim.
  for v_id in select distinct x.i from unnest(results.ids) as x(i) where x.i is not null loop
    select r.* into v_res from q_data.job_result r where r.id = v_id;
    if found then
      select h.* into v_done from q_data.job_history h where h.id = v_id;
      return query select v_id, (select qq.name from q_data.queue qq where qq.id = v_res.queue_id),
        'completed'::text, v_res.result, v_done.errors -> -1 ->> 'error', v_res.attempt::integer,
        v_res.finished_at, v_res.progress;
      continue;
    end if;
    select h.* into v_done from q_data.job_history h where h.id = v_id;
    if found then
      return query select v_id, (select qq.name from q_data.queue qq where qq.id = v_done.queue_id),
        v_done.state, null::jsonb, v_done.errors -> -1 ->> 'error', v_done.attempt::integer,
        v_done.finished_at, v_done.progress;
      continue;
    end if;
    select j.* into v_job from q_data.job j where j.id = v_id and j.state = 'r';
    if found then
      return query select v_id, (select qq.name from q_data.queue qq where qq.id = v_job.queue_id),
        'running'::text, null::jsonb, v_job.errors -> -1 ->> 'error', v_job.attempt::integer,
        null::timestamptz, v_job.progress;
      continue;
    end if;
    v_rest := v_rest || v_id;
  end loop;
  if cardinality(v_rest) = 0 then
    return;
  end if;
  -- Waiting, scheduled and held jobs have no id index (see q_data.job: one
  -- index entry per waiting job), so the rest costs one read of the hot
  -- table, as q.explain's lookup does.
  return query
    select x.i, qq.name,
           case j.state when 'w' then 'waiting' when 's' then 'scheduled' when 'h' then 'held'
                        when 'r' then 'running' else j.state::text end,
           null::jsonb, j.errors -> -1 ->> 'error', j.attempt::integer, null::timestamptz, j.progress
      from unnest(v_rest) as x(i)
      left join q_data.job j on j.id = x.i
      left join q_data.queue qq on qq.id = j.queue_id
     where j.id is not null
    union all
    select x.i, null::text, 'unknown'::text, null::jsonb, null::text, null::integer, null::timestamptz, null::jsonb
      from unnest(v_rest) as x(i)
     where not exists (select from q_data.job j where j.id = x.i);
end
$$;

comment on function q.results(bigint[]) is
  'What became of each job (up to 10000 ids; one row per distinct id, in no particular order): state (waiting, scheduled, held, running, completed, dead, cancelled; unknown: never existed, or completed with no result and no history, or past retention), the result of a completed job (NULL without one), the last error, attempts, when it finished and its last progress (q.heartbeat). Results are kept for the queue''s keep_results, history for its retention. Finished and running jobs are found by index; waiting ones by one read of the hot table.';

revoke all on function q.results(bigint[]) from public;
grant execute on function q.results(bigint[]) to pgq_viewer, pgq_producer, pgq_worker;

