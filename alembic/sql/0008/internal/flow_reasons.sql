create or replace function q.flow_reasons(job q_data.job, queue q_data.queue)
returns table (code text, reason text)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
-- Takes the rows its callers have already read: a waiting job has no id
-- index, so looking it up again would scan the hot table a second time
-- (q.explain reads it once, q.flow_block_reason once).
declare
  v_next  timestamptz;
begin
  if (flow_reasons.job).state = 'h' then
    code := 'key_concurrency';
    reason := format('held: the %s slot(s) of concurrency key %L are taken by jobs %s%s',
                     (flow_reasons.queue).key_concurrency, (flow_reasons.job).concurrency_key,
                     coalesce((select string_agg(s.job_id::text, ', ' order by s.n) from q_data.key_slot s
                                where s.queue_id = (flow_reasons.job).queue_id
                                  and s.key = (flow_reasons.job).concurrency_key
                                  and s.job_id is not null), 'that have just finished (the reaper admits it within a second)'),
                     case when (flow_reasons.queue).ordered then ' (ordered key: it runs after the key''s earlier jobs)' else '' end);
    return next;
    return;
  end if;
  if (flow_reasons.job).state = 's' and (flow_reasons.job).rate_wait
     and (flow_reasons.job).run_at > clock_timestamp() then
    code := 'key_rate';
    reason := format('put off by the rate of concurrency key %L: at most %s start(s) per %s, and its next start is allowed at %s',
                     (flow_reasons.job).concurrency_key, (flow_reasons.queue).key_rate,
                     (flow_reasons.queue).key_per, (flow_reasons.job).run_at);
    return next;
    return;
  end if;
  if (flow_reasons.job).state <> 'w' then
    return;  -- running, or scheduled for later: not held by a limit
  end if;
  if (flow_reasons.queue).concurrency is not null
     and not exists (select from q_data.queue_slot s
                      where s.queue_id = (flow_reasons.job).queue_id
                        and s.n <= (flow_reasons.queue).concurrency and s.job_id is null) then
    code := 'concurrency';
    reason := format('waiting: all %s concurrency slots of queue %L are taken by running jobs',
                     (flow_reasons.queue).concurrency, (flow_reasons.queue).name);
    return next;
  end if;
  if (flow_reasons.queue).rate is not null then
    select min(r.used_at) + (flow_reasons.queue).per into v_next
      from q_data.rate_slot r
     where r.queue_id = (flow_reasons.job).queue_id and r.n <= (flow_reasons.queue).rate;
    if v_next > clock_timestamp() then
      code := 'rate';
      reason := format('waiting: queue %L started %s jobs in the last %s; the next start is allowed at %s',
                       (flow_reasons.queue).name, (flow_reasons.queue).rate, (flow_reasons.queue).per, v_next);
      return next;
    end if;
  end if;
  if (flow_reasons.queue).key_rate is not null and (flow_reasons.job).concurrency_key is not null then
    -- (rows are made as starts need them: fewer than key_rate is not full)
    select case when count(*) >= (flow_reasons.queue).key_rate
                then min(r.used_at) + (flow_reasons.queue).key_per end into v_next
      from q_data.key_rate_slot r
     where r.queue_id = (flow_reasons.job).queue_id and r.key = (flow_reasons.job).concurrency_key
       and r.n <= (flow_reasons.queue).key_rate;
    if v_next > clock_timestamp() then
      code := 'key_rate';
      reason := format('waiting: concurrency key %L started %s jobs in the last %s; its next start is allowed at %s (the next claim puts the job off until then)',
                       (flow_reasons.job).concurrency_key, (flow_reasons.queue).key_rate, (flow_reasons.queue).key_per, v_next);
      return next;
    end if;
  end if;
end
$$;

comment on function q.flow_reasons(q_data.job, q_data.queue) is
  'The flow-control reasons a job (with its queue row) is not running: key_concurrency (held), concurrency (every queue slot taken), rate (the window is full), key_rate (its key''s window is full, or the job was put off until it frees). Shared by q.flow_block_reason and q.explain.';

revoke all on function q.flow_reasons(q_data.job, q_data.queue) from public;
