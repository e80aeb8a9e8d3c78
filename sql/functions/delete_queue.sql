create or replace function q.delete_queue(queue text)
returns table (history_deleted integer)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
declare
  v_queue  q_data.queue := q.queue_named(delete_queue.queue);
  v_count  integer;
begin
  -- An enqueue into this name that has not committed yet must not lose its
  -- job (0007 deleted the queue under it: the job committed pointing at a
  -- queue that no longer existed, never claimable, invisible to stats). Every
  -- enqueue holds a SHARED advisory lock on the name's bucket from before it
  -- reads the queue row until it commits, or else locks the row FOR KEY SHARE
  -- (q.ensure_queue). Taking the bucket EXCLUSIVELY waits for those in flight
  -- (at most lock_timeout, 2 s: then 55P03); the row FOR UPDATE makes later
  -- ones wait for this transaction and then find the row gone (they make it
  -- again). A role that squats the bucket can make this call fail, never lose
  -- a job.
  perform pg_advisory_xact_lock(1885827329, hashtext(v_queue.name) & 15);
  perform from q_data.queue qq where qq.id = v_queue.id for update;
  -- One probe per state, each on its partial index ("where queue_id = $1"
  -- alone would scan q_data.job).
  if exists (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'w')
     or exists (select from q_data.job j where j.queue_id = v_queue.id and j.state = 's')
     or exists (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'h')
     or exists (select from q_data.job j where j.state = 'r' and j.queue_id = v_queue.id) then
    raise exception 'queue % still has waiting, scheduled or running jobs', quote_literal(v_queue.name)
      using errcode = '55000',
            hint = 'q.purge(queue) deletes waiting and scheduled ones; q.cancel_jobs(queue) also running ones';
  end if;
  -- A schedule names the queue by id: deleting it under the schedule would
  -- raise a raw foreign-key error (23503, 0007). Say which schedules to move.
  if exists (select from q_data.schedule s where s.queue_id = v_queue.id) then
    raise exception 'queue % is the target of schedule(s) %', quote_literal(v_queue.name),
      (select string_agg(quote_literal(s.name), ', ' order by s.name) from q_data.schedule s where s.queue_id = v_queue.id)
      using errcode = '55000',
            hint = 'q.unschedule(name) them first, or q.schedule(name, ..., queue => another) to point them elsewhere';
  end if;
  delete from q_data.job_history h where h.queue_id = v_queue.id;
  get diagnostics v_count = row_count;
  delete from q_data.tally t where t.queue_id = v_queue.id;
  delete from q_data.throughput t where t.queue_id = v_queue.id;
  delete from q_data.throughput_total t where t.queue_id = v_queue.id;
  delete from q_data.queue qq where qq.id = v_queue.id;
  return query select v_count;
exception when lock_not_available then
  perform q.lock_wait_failed('q.delete_queue', format('queue %L', delete_queue.queue));
end
$$;

comment on function q.delete_queue(text) is
  'Deletes a queue that has no waiting, scheduled or running job (55000 otherwise: purge or cancel them first), with its history and throughput figures; returns how many history rows went. A later enqueue to the name creates it afresh; an enqueue in flight is waited for (at most 2 s, then 55P03), so its job is never lost. 55000 while a schedule fires into the queue. P0002 for an unknown queue.';

revoke all on function q.delete_queue(text) from public;
grant execute on function q.delete_queue(text) to pgq_admin;
