create or replace function q.pause(queue text)
returns void
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  update q.queue qq set paused = true where qq.id = (q.ensure_queue(pause.queue)).id;
end
$$;

comment on function q.pause(text) is
  'Stops q.claim from handing out jobs of this queue (running jobs go on; enqueue still works).';

revoke all on function q.pause(text) from public;
grant execute on function q.pause(text) to pgq_admin;
