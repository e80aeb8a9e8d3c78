create or replace function q.purge(queue text, max_rows integer default 10000)
returns table (purged integer, more boolean)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
declare
  v_queue  q_data.queue := q.queue_named(purge.queue);
  v_count  integer;
begin
  perform q.check_max_rows(purge.max_rows, 1000000);
  -- Waiting and scheduled jobs only: running ones belong to a worker (cancel
  -- them with q.cancel_jobs). Deleted outright, no history: a purge is for
  -- jobs nobody wants (a flood, a typo), the cheapest way out.
  -- A purged parent never ran: for its children (sql/triggers/job_ended.sql) it
  -- counts as cancelled.
  perform set_config('pgq.job_end', 'purged', true);
  delete from q_data.job j
   where j.ctid = any(array(
           select x.ctid from q_data.job x
            where x.queue_id = v_queue.id and x.state in ('w', 's', 'h')
            limit purge.max_rows
              for update skip locked));
  get diagnostics v_count = row_count;
  perform set_config('pgq.job_end', '', true);
  return query select v_count,
    exists (select from q_data.job x where x.queue_id = v_queue.id and x.state in ('w', 's', 'h'));
exception when lock_not_available then
  perform q.lock_wait_failed('q.purge', format('queue %L', purge.queue));
end
$$;

comment on function q.purge(text, integer) is
  'Deletes up to max_rows (1..1000000) waiting (held by a concurrency key included) and scheduled jobs of a queue, without history (running jobs stay). Returns purged and more (jobs remain: call again). P0002 for an unknown queue.';

revoke all on function q.purge(text, integer) from public;
grant execute on function q.purge(text, integer) to pgq_admin;
