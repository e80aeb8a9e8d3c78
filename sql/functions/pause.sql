create or replace function q.pause(queue text)
returns void
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  -- Its own statement: inside the UPDATE's WHERE this volatile call ran once
  -- per existing queue row (and never on an empty table), and the row it
  -- created was invisible to the UPDATE, so a new queue stayed unpaused.
  v_queue_id integer := (q.ensure_queue(pause.queue)).id;
begin
  update q_data.queue qq set paused = true where qq.id = v_queue_id;
end
$$;

comment on function q.pause(text) is
  'Stops q.claim from handing out jobs of this queue (running jobs go on; enqueue still works).';

revoke all on function q.pause(text) from public;
grant execute on function q.pause(text) to pgq_admin;
