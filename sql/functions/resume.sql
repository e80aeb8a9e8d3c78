create or replace function q.resume(queue text)
returns void
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
declare
  v_queue_id integer := (q.ensure_queue(resume.queue)).id;
begin
  update q_data.queue qq set paused = false where qq.id = v_queue_id;
  perform q.notify_always(array[v_queue_id]);
exception when lock_not_available then
  perform q.lock_wait_failed('q.resume', format('queue %L', resume.queue));
end
$$;

comment on function q.resume(text) is
  'Lets q.claim hand out jobs of a paused queue again, and wakes listening workers.';

revoke all on function q.resume(text) from public;
grant execute on function q.resume(text) to pgq_admin;
