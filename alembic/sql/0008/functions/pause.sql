create or replace function q.pause(queue text)
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
  -- Its own statement: inside the UPDATE's WHERE this volatile call ran once
  -- per existing queue row (and never on an empty table), and the row it
  -- created was invisible to the UPDATE, so a new queue stayed unpaused.
  v_queue_id integer := (q.ensure_queue(pause.queue)).id;
begin
  update q_data.queue qq set paused = true where qq.id = v_queue_id;
exception when lock_not_available then
  perform q.lock_wait_failed('q.pause', format('queue %L', pause.queue));
end
$$;

comment on function q.pause(text) is
  'Stops q.claim from handing out jobs of this queue (running jobs go on; enqueue still works).';

revoke all on function q.pause(text) from public;
grant execute on function q.pause(text) to pgq_admin;
