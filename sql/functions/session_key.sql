create or replace function q.session_key()
returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_pid    integer := pg_backend_pid();
  v_start  timestamptz;
  v_key    integer;
begin
  -- The key is a row of q_data.session naming this backend (pid, backend_start),
  -- not an advisory lock: nothing another role can take or hold makes this
  -- wait, and RESET ALL / DISCARD ALL / pg_advisory_unlock_all() cannot make
  -- a live session look gone. After a RESET the setting pgq.session_key is
  -- gone but the row is not, so the same backend finds its key again.
  select a.backend_start into v_start
    from pg_stat_get_activity(v_pid) a;
  select s.key into v_key
    from q_data.session s
   where s.pid = v_pid
     and s.backend_start is not distinct from v_start
   order by s.key desc
   limit 1;
  if v_key is null then
    loop
      v_key := nextval('q_data.session_seq');
      -- The sequence cycles after 2^31 keys: step over a key still in use.
      insert into q_data.session (key, pid, backend_start)
      values (v_key, v_pid, v_start)
      on conflict (key) do nothing;
      exit when found;
    end loop;
  end if;
  -- No set_config('pgq.session_key') any more: 0002's q.claim took that
  -- setting as its default owner, and after a downgrade a key without its
  -- advisory lock would look dead at once.
  return v_key;
end
$$;

comment on function q.session_key() is
  'This session''s liveness key: registered in q_data.session on first call (pid and backend_start of this backend) and alive for as long as this connection is. Pass it as q.claim(owner => key), from this or another connection, so q.reap frees the jobs of a dead session within a second. Never waits on a lock; RESET ALL, DISCARD ALL and pg_advisory_unlock_all() do not change it.';

revoke all on function q.session_key() from public;
grant execute on function q.session_key() to pgq_worker;
