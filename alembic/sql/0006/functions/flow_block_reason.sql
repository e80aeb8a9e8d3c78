create or replace function q.flow_block_reason(job_id bigint)
returns table (code text, reason text)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_job    q.job;
  v_queue  q.queue;
  v_next   timestamptz;
begin
  if flow_block_reason.job_id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;
  select * into v_job from q.job j where j.id = flow_block_reason.job_id;
  if not found then
    if exists (select from q.job_history h where h.id = flow_block_reason.job_id) then
      return;  -- finished: nothing holds it
    end if;
    raise exception 'job % does not exist', flow_block_reason.job_id using errcode = 'P0002';
  end if;
  select * into v_queue from q.queue qq where qq.id = v_job.queue_id;

  if v_job.state = 'h' then
    code := 'key_concurrency';
    reason := format('held: the %s slot(s) of concurrency key %L are taken by jobs %s%s',
                     v_queue.key_concurrency, v_job.concurrency_key,
                     coalesce((select string_agg(s.job_id::text, ', ' order by s.n) from q.key_slot s
                                where s.queue_id = v_job.queue_id and s.key = v_job.concurrency_key
                                  and s.job_id is not null), 'that have just finished (the reaper admits it within a second)'),
                     case when v_queue.ordered then ' (ordered key: it runs after the key''s earlier jobs)' else '' end);
    return next;
    return;
  end if;
  if v_job.state <> 'w' then
    return;  -- running, or scheduled for later: not held by a limit
  end if;
  if v_queue.concurrency is not null
     and not exists (select from q.queue_slot s
                      where s.queue_id = v_job.queue_id and s.n <= v_queue.concurrency and s.job_id is null) then
    code := 'concurrency';
    reason := format('waiting: all %s concurrency slots of queue %L are taken by running jobs',
                     v_queue.concurrency, v_queue.name);
    return next;
  end if;
  if v_queue.rate is not null then
    select min(r.used_at) + v_queue.per into v_next
      from q.rate_slot r where r.queue_id = v_job.queue_id and r.n <= v_queue.rate;
    if v_next > clock_timestamp() then
      code := 'rate';
      reason := format('waiting: queue %L started %s jobs in the last %s; the next start is allowed at %s',
                       v_queue.name, v_queue.rate, v_queue.per, v_next);
      return next;
    end if;
  end if;
end
$$;

comment on function q.flow_block_reason(bigint) is
  'Why a job is not running because of a flow-control limit: rows (code, reason) with code key_concurrency (held: its key''s slots are taken), concurrency (every queue slot is taken) or rate (the window is full, with the next allowed start); no row when no limit holds it. Raises P0002 for an unknown id.';

revoke all on function q.flow_block_reason(bigint) from public;
grant execute on function q.flow_block_reason(bigint) to pgq_viewer;
