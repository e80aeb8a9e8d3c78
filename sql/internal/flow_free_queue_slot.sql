-- A running job of a queue with a concurrency limit stops running: its queue
-- slot is free for the next claim, and a listening worker that found every
-- slot taken is woken (q.flow_wake). Called by every path that takes a job
-- out of state r: q.fail, q.release, q.release_many and q.reap when they put
-- it back in line (each sets queue_slot to NULL in the same UPDATE; the row's
-- CHECK constraint refuses a job outside state r that keeps one), and the
-- q.job_ended (sql/internal/job_ended.sql) when it ends.
--
-- Why calls and not a BEFORE UPDATE trigger (revision 0012; 0008-0011 had
-- _100_flow_state_changed): PostgreSQL fetches and locks the old row again
-- for every UPDATE of a table with any BEFORE UPDATE row trigger, before it
-- reads the trigger's column list or WHEN, so every claim, heartbeat and
-- complete_many paid for it on every queue, limited or not: 182.6 -> 167.6 µs
-- of server CPU per q.claim(queue, 1) without it, 0011 and 0012 side by side
-- (design.md#no-update-trigger-on-the-job-table).
create or replace function q.flow_free_queue_slot(queue_id integer, n smallint)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  update q_data.queue_slot s
     set job_id = null
   where s.queue_id = flow_free_queue_slot.queue_id
     and s.n = flow_free_queue_slot.n;
  perform q.flow_wake(flow_free_queue_slot.queue_id);
end
$$;

comment on function q.flow_free_queue_slot(integer, smallint) is
  'Frees queue slot n of a queue (its running job stopped running or ended) and wakes a listening worker that asked for a slot (q.flow_wake).';

revoke all on function q.flow_free_queue_slot(integer, smallint) from public;
