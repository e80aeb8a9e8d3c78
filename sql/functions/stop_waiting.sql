-- A worker that stops cleanly ends its waits (q_data.waiter) at once. Left in
-- place, each would cost one needless NOTIFY (the next enqueue into its queue
-- takes it, sql/triggers/notify_enqueued.sql) or wait for q.reap to see the
-- session gone. Rows a producer holds are skipped, never waited for: that
-- producer is taking them anyway (or, if it rolls back, the next one will).
create or replace function q.stop_waiting(owner integer)
returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_count integer;
begin
  if stop_waiting.owner is null or stop_waiting.owner <= 0 then
    raise exception 'owner must be a key from q.session_key(), got %', coalesce(stop_waiting.owner::text, 'NULL')
      using errcode = '22023';
  end if;
  delete from q_data.waiter w
   where w.ctid = any(array(
           select x.ctid from q_data.waiter x
            where x.session_key = stop_waiting.owner
              for update skip locked));
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

comment on function q.stop_waiting(integer) is
  'Ends every wait of session key owner (a key from q.session_key()): enqueues stop sending it wake-ups. For a worker that stops cleanly; returns how many waits ended. Never waits on a lock (a wait a producer is taking is left to it).';

revoke all on function q.stop_waiting(integer) from public;
grant execute on function q.stop_waiting(integer) to pgq_worker;
