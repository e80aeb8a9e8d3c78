create or replace function q.keep_result(job q_data.job, result jsonb, finished_at timestamptz)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue  q_data.queue;
  v_size   integer;
begin
  -- Called for a job that has just left q_data.job as completed, in the same
  -- statement: a raise here rolls the DELETE back too, so an over-size
  -- result leaves the claim as it was (the worker may fail the job instead).
  if keep_result.result is not null then
    select qq.* into v_queue from q_data.queue qq where qq.id = keep_result.job.queue_id;
    v_size := q.payload_size(keep_result.result);
    if v_size > v_queue.max_result_size then
      raise exception 'result of job % is % bytes, over queue %''s max_result_size of % bytes',
        keep_result.job.id, v_size, quote_literal(v_queue.name), v_queue.max_result_size
        using errcode = '54000',
              hint = 'store large results elsewhere and return a reference, or raise the cap: q.configure(queue, max_result_size => ...)';
    end if;
  end if;
  insert into q_data.job_result (id, queue_id, result, progress, attempt, finished_at)
  values (keep_result.job.id, keep_result.job.queue_id, keep_result.result, keep_result.job.progress,
          keep_result.job.attempt, keep_result.finished_at)
  -- A job retried after it completed (it cannot be today) would replace its row.
  on conflict (id) do update
    set result = excluded.result, progress = excluded.progress, attempt = excluded.attempt,
        finished_at = excluded.finished_at, queue_id = excluded.queue_id;
end
$$;

comment on function q.keep_result(q_data.job, jsonb, timestamptz) is
  'Stores a completed job''s result (may be NULL: a receipt for an awaited job) in q_data.job_result; raises 54000 when the result is over the queue''s max_result_size.';

revoke all on function q.keep_result(q_data.job, jsonb, timestamptz) from public;
