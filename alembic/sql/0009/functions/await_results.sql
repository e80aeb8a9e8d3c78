create or replace function q.await_results(ids bigint[], timeout interval default '5 minutes')
returns table (id bigint, queue text, state text, result jsonb, last_error text, attempts integer,
               finished_at timestamptz, progress jsonb)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_row record;
begin
  if await_results.ids is null or await_results.timeout is null then
    raise exception 'ids and timeout must not be null' using errcode = '22004';
  end if;
  if cardinality(await_results.ids) > 10000 then
    raise exception 'at most 10000 ids per call, got %', cardinality(await_results.ids)
      using errcode = '54000';
  end if;
  if await_results.timeout <= interval '0' or await_results.timeout > interval '1 day' then
    raise exception 'timeout must be positive and at most 1 day, got %', await_results.timeout
      using errcode = '22023';
  end if;
  -- Registered before the jobs are looked at: a job that finishes after this
  -- statement finds the row and sends NOTIFY pgq_result. (One that finishes
  -- between this statement and the caller's commit does not see it: the
  -- caller also polls, see wait_results in the Python client.)
  insert into q_data.result_waiter (job_id, pid, until)
  select distinct x.i, pg_backend_pid(), clock_timestamp() + await_results.timeout
    from unnest(await_results.ids) as x(i)
   where x.i is not null
  on conflict on constraint result_waiter_pkey do update set until = excluded.until;
  for v_row in select * from q.results(await_results.ids) r loop
    if v_row.state not in ('waiting', 'scheduled', 'held', 'running') then
      -- Finished (or unknown): nothing to wait for.
      delete from q_data.result_waiter w where w.job_id = v_row.id and w.pid = pg_backend_pid();
    end if;
    return query select v_row.id, v_row.queue, v_row.state, v_row.result, v_row.last_error, v_row.attempts,
      v_row.finished_at, v_row.progress;
  end loop;
end
$$;

comment on function q.await_results(bigint[], interval) is
  'q.results, and for each job not finished yet the caller''s backend is registered as awaiting it (for timeout, at most 1 day): the transaction that completes, kills or cancels the job sends NOTIFY pgq_result with the job id. LISTEN pgq_result before calling, commit, wait for a notification naming an id, then call again. No NOTIFY is sent for jobs nobody awaits.';

revoke all on function q.await_results(bigint[], interval) from public;
grant execute on function q.await_results(bigint[], interval) to pgq_producer, pgq_worker;
