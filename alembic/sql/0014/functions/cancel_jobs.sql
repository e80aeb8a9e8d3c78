create or replace function q.cancel_jobs(
  queue             text,
  state             text    default null,
  payload_contains  jsonb   default null,
  max_rows          integer default 1000
)
returns table (cancelled integer, more boolean)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
declare
  v_queue  q_data.queue := q.queue_named(cancel_jobs.queue);
  v_state  "char";
  v_now    timestamptz := clock_timestamp();
  v_count  integer := 0;
  v_job    q_data.job;
begin
  perform q.check_max_rows(cancel_jobs.max_rows, 100000);
  if cancel_jobs.state is not null and cancel_jobs.state not in ('waiting', 'scheduled', 'running') then
    raise exception 'state must be waiting, scheduled, running or NULL (all three), got %', quote_literal(cancel_jobs.state)
      using errcode = '22023';
  end if;
  v_state := case cancel_jobs.state when 'waiting' then 'w' when 'scheduled' then 's' when 'running' then 'r' end;

  -- Rows another session holds (being claimed, completed) are stepped over:
  -- a bulk action never waits behind the workers. Each job goes to the
  -- history through q.finish, as q.cancel's do: a running job's worker
  -- hears 'cancelled' at its next heartbeat; its complete is refused.
  -- Each one's end goes to q.job_ended first (sql/internal/job_ended.sql):
  -- their children follow their on_parent_failure policy.
  for v_job in
    delete from q_data.job j
     where j.ctid = any(array(
             select x.ctid from q_data.job x
              where x.queue_id = v_queue.id
                and (v_state is null or x.state = v_state or (v_state = 'w' and x.state = 'h'))
                and (cancel_jobs.payload_contains is null or x.payload @> cancel_jobs.payload_contains)
              limit cancel_jobs.max_rows
                for update skip locked))
    returning j.*
  loop
    if v_job.queue_slot is not null or v_job.key_slot is not null or v_job.has_children
       or v_job.batch_id is not null or v_job.parents_left is not null then
      perform q.job_ended(v_job, 'x');
    end if;
    perform q.finish(v_job, 'cancelled', v_now);
    v_count := v_count + 1;
  end loop;

  return query select v_count,
    exists (select from q_data.job x
             where x.queue_id = v_queue.id
               and (v_state is null or x.state = v_state or (v_state = 'w' and x.state = 'h'))
               and (cancel_jobs.payload_contains is null or x.payload @> cancel_jobs.payload_contains));
exception when lock_not_available then
  perform q.lock_wait_failed('q.cancel_jobs', format('queue %L', cancel_jobs.queue));
end
$$;

comment on function q.cancel_jobs(text, text, jsonb, integer) is
  'Cancels up to max_rows (1..100000) jobs of a queue, optionally only one state (waiting, which includes jobs held by a concurrency key, scheduled, running) and only payloads containing payload_contains (jsonb @>); each moves to q_data.job_history as cancelled, as q.cancel does. Rows other sessions hold at that moment are skipped. Returns cancelled and more (matching jobs remain: call again). P0002 for an unknown queue.';

revoke all on function q.cancel_jobs(text, text, jsonb, integer) from public;
grant execute on function q.cancel_jobs(text, text, jsonb, integer) to pgq_admin;
