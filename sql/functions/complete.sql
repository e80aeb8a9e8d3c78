create or replace function q.complete(id bigint, token uuid)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_job q_data.job;
begin
  perform q.check_claim(complete.id, complete.token);
  -- Fencing: only the current claim's token matches. A worker whose claim
  -- was reaped, reclaimed or cancelled changes nothing and learns so.
  delete from q_data.job j
   where j.id = complete.id
     and j.state = 'r'
     and j.token = complete.token
  returning j.* into v_job;
  if not found then
    return false;
  end if;
  insert into q_data.tally (queue_id, outcome, n) values (v_job.queue_id, 'c', 1);  -- pgq:observe (issue 13): throughput tally
  if (select qq.keep_completed from q_data.queue qq where qq.id = v_job.queue_id) then
    perform q.finish(v_job, 'completed', clock_timestamp());
  end if;
  return true;
end
$$;

comment on function q.complete(bigint, uuid) is
  'Marks a claimed job done: true if (id, token) is the job''s current claim, false (and nothing changes) otherwise. The job leaves q_data.job; q_data.job_history keeps it if the queue has keep_completed.';

revoke all on function q.complete(bigint, uuid) from public;
grant execute on function q.complete(bigint, uuid) to pgq_worker;
