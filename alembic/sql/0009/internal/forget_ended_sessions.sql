create or replace function q.forget_ended_sessions(max_rows integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_count  integer;
  -- Rows of sessions that ended with the server stay through the restart
  -- grace (see q.gone_owners): a claim naming a deleted key is gone at once.
  v_began  timestamptz := q.server_began();
  v_grace  boolean := clock_timestamp() < v_began + q.restart_grace();
begin
  -- Called by q.reap after the lost claims went back: a key with no row
  -- counts as gone, so a claim still naming a deleted key is reaped too.
  perform pg_stat_clear_snapshot();
  -- Their waits first (q_data.waiter), skipping rows a producer holds: since
  -- 0009 an enqueue takes a waiter row in its own transaction, and the
  -- cascade from the session row would wait for that transaction. A session
  -- that still has a wait (held) stays for the next call.
  with alive as materialized (
    select a.pid, a.backend_start from pg_stat_get_activity(null) a
  )
  delete from q_data.waiter w
   where w.ctid = any(array(
           select y.ctid from q_data.waiter y
            where y.session_key in (
                    select x.key from q_data.session x
                     where not exists (
                             select from alive a
                              where a.pid = x.pid
                                and (a.backend_start is null or x.backend_start is null
                                     or a.backend_start = x.backend_start)))
              for update skip locked));
  with alive as materialized (
    select a.pid, a.backend_start from pg_stat_get_activity(null) a
  )
  delete from q_data.session s
   where s.ctid = any(array(
           select x.ctid from q_data.session x
            where not exists (
                    select from alive a
                     where a.pid = x.pid
                       and (a.backend_start is null or x.backend_start is null
                            or a.backend_start = x.backend_start))
              and not (v_grace and x.registered_at < v_began)
              and not exists (select from q_data.waiter w where w.session_key = x.key)
            limit forget_ended_sessions.max_rows
              for update skip locked));
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

comment on function q.forget_ended_sessions(integer) is
  'Deletes up to max_rows q_data.session rows whose backend has ended (those that ended with the server only after q.restart_grace()); returns how many.';

revoke all on function q.forget_ended_sessions(integer) from public;
