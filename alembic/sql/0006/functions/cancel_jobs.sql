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
as $$
declare
  v_queue  q.queue := q.queue_named(cancel_jobs.queue);
  v_state  "char";
  v_now    timestamptz := clock_timestamp();
  v_count  integer;
begin
  perform q.check_max_rows(cancel_jobs.max_rows, 100000);
  if cancel_jobs.state is not null and cancel_jobs.state not in ('waiting', 'scheduled', 'running') then
    raise exception 'state must be waiting, scheduled, running or NULL (all three), got %', quote_literal(cancel_jobs.state)
      using errcode = '22023';
  end if;
  v_state := case cancel_jobs.state when 'waiting' then 'w' when 'scheduled' then 's' when 'running' then 'r' end;

  -- Rows another session holds (being claimed, completed) are stepped over:
  -- a bulk action never waits behind the workers. A running job's worker
  -- learns at its next heartbeat ('cancelled'); its complete is refused.
  with gone as (
    delete from q.job j
     where j.ctid = any(array(
             select x.ctid from q.job x
              where x.queue_id = v_queue.id
                and (v_state is null or x.state = v_state or (v_state = 'w' and x.state = 'h'))
                and (cancel_jobs.payload_contains is null or x.payload @> cancel_jobs.payload_contains)
              limit cancel_jobs.max_rows
                for update skip locked))
    returning j.*
  ), kept as (
    insert into q.job_history
      (id, queue_id, state, payload, priority, attempt, crashes, max_attempts, run_at, finished_at, dedup_key, errors,
       token, concurrency_key)
    -- As q.finish writes a cancelled job: its token is kept, so q.heartbeat
    -- says 'cancelled' to that claim's holder (and 'lost' to any other).
    select g.id, g.queue_id, 'cancelled', g.payload, g.priority, g.attempt, g.crashes, g.max_attempts,
           g.run_at, v_now, g.dedup_key, g.errors, g.token, g.concurrency_key
      from gone g
    returning 1
  )
  select count(*) into v_count from kept;

  return query select v_count,
    exists (select from q.job x
             where x.queue_id = v_queue.id
               and (v_state is null or x.state = v_state or (v_state = 'w' and x.state = 'h'))
               and (cancel_jobs.payload_contains is null or x.payload @> cancel_jobs.payload_contains));
end
$$;

comment on function q.cancel_jobs(text, text, jsonb, integer) is
  'Cancels up to max_rows (1..100000) jobs of a queue, optionally only one state (waiting, which includes jobs held by a concurrency key, scheduled, running) and only payloads containing payload_contains (jsonb @>); each moves to q.job_history as cancelled, as q.cancel does. Rows other sessions hold at that moment are skipped. Returns cancelled and more (matching jobs remain: call again). P0002 for an unknown queue.';

revoke all on function q.cancel_jobs(text, text, jsonb, integer) from public;
grant execute on function q.cancel_jobs(text, text, jsonb, integer) to pgq_admin;
