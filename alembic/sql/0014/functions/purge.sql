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
  v_ended  q_data.job[];
  v_job    q_data.job;
begin
  perform q.check_max_rows(purge.max_rows, 1000000);
  -- Waiting and scheduled jobs only: running ones belong to a worker (cancel
  -- them with q.cancel_jobs). Deleted outright, no history: a purge is for
  -- jobs nobody wants (a flood, a typo), the cheapest way out.
  -- A purged parent never ran: for its children (q.job_ended, called for the
  -- rows that have slots, children, parents or a batch) it counts as cancelled.
  with gone as (
    delete from q_data.job j
     where j.ctid = any(array(
             select x.ctid from q_data.job x
              where x.queue_id = v_queue.id and x.state in ('w', 's', 'h')
              limit purge.max_rows
                for update skip locked))
    returning j.queue_slot is not null or j.key_slot is not null or j.has_children
              or j.batch_id is not null or j.parents_left is not null as needs_end,
              case when j.queue_slot is not null or j.key_slot is not null or j.has_children
                        or j.batch_id is not null or j.parents_left is not null then j end as ended
  )
  -- (needs_end, not "ended is not null": a row value IS NOT NULL only when every field is)
  select count(*), array_agg(g.ended) filter (where g.needs_end)
    into v_count, v_ended
    from gone g;
  if v_ended is not null then
    foreach v_job in array v_ended loop
      perform q.job_ended(v_job, 'x');
    end loop;
  end if;
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
