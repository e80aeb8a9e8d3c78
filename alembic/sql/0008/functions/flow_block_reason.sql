create or replace function q.flow_block_reason(job_id bigint)
returns table (code text, reason text)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_job    q_data.job;
  v_queue  q_data.queue;
begin
  if flow_block_reason.job_id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;
  select * into v_job from q_data.job j where j.id = flow_block_reason.job_id;
  if not found then
    if exists (select from q_data.job_history h where h.id = flow_block_reason.job_id) then
      return;  -- finished: nothing holds it
    end if;
    raise exception 'job % does not exist', flow_block_reason.job_id using errcode = 'P0002';
  end if;
  select * into v_queue from q_data.queue qq where qq.id = v_job.queue_id;
  return query select * from q.flow_reasons(v_job, v_queue);
end
$$;

comment on function q.flow_block_reason(bigint) is
  'Why a job is not running because of a flow-control limit: rows (code, reason) with code key_concurrency (held: its key''s slots are taken), concurrency (every queue slot is taken), rate (the window is full, with the next allowed start) or key_rate (its key''s window is full, or the job was put off until it frees); no row when no limit holds it. Raises P0002 for an unknown id.';

revoke all on function q.flow_block_reason(bigint) from public;
grant execute on function q.flow_block_reason(bigint) to pgq_viewer;
