create or replace function q.retry(id bigint)
returns bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
declare
  v_job    q_data.job_history;
  v_graph  record;
begin
  if retry.id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;
  delete from q_data.job_history h
   where h.id = retry.id and h.state in ('dead', 'cancelled')
  returning h.* into v_job;
  if not found then
    if exists (select from q_data.job_history h where h.id = retry.id)
       or exists (select from q_data.job j where j.id = retry.id) then
      raise exception 'job % is not dead or cancelled', retry.id using errcode = '55000';
    end if;
    raise exception 'job % does not exist', retry.id using errcode = 'P0002';
  end if;

  -- In a graph (revision 0010): a child waits again for its parents that run
  -- again, pending (state p) until they end, and children on hold for this
  -- job wait for it again (q.deps_rejoin). 0009 put a child straight back as
  -- waiting, so it could run before the parent an operator had retried.
  v_graph := q.deps_rejoin(v_job.id);

  -- Same id, a fresh budget; the errors of earlier attempts stay (the
  -- newest 20: a history written before 0003 may hold more).
  begin
    insert into q_data.job (id, queue_id, payload, run_at, state, priority, max_attempts, dedup_key, errors,
                       concurrency_key, parents_left, has_children)
    overriding system value
    values (v_job.id, v_job.queue_id, v_job.payload, clock_timestamp(),
            case when v_graph.parents_left > 0 then 'p' else 'w' end,
            v_job.priority, v_job.max_attempts, v_job.dedup_key, case when v_job.errors is not null then q.append_error(v_job.errors, '[]') end,
            v_job.concurrency_key, v_graph.parents_left, v_graph.has_children);
  exception when unique_violation then
    raise exception 'job % cannot be retried: another job with dedup key % is waiting or running',
      retry.id, quote_literal(v_job.dedup_key)
      using errcode = '23505';
  end;
  return v_job.id;
exception when lock_not_available then
  perform q.lock_wait_failed('q.retry', format('job %s', retry.id));
end
$$;

comment on function q.retry(bigint) is
  'Puts a dead (or cancelled) job back in its queue as waiting, with the same id, attempt 0 and its earlier errors kept. A job with parents waits (pending) for those that have not completed and run again (retry parents first); children on hold because it failed wait for it again. It does not rejoin its batch. Raises P0002 for an unknown id, 55000 for a job that is not dead or cancelled.';

revoke all on function q.retry(bigint) from public;
grant execute on function q.retry(bigint) to pgq_admin;
