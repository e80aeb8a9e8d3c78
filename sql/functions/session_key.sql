create or replace function q.session_key()
returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_key integer := nullif(current_setting('pgq.session_key', true), '')::integer;
begin
  if v_key is null then
    -- A rollback undoes set_config but neither nextval nor the session lock:
    -- if this session drew a key before, it still holds it, so take that one
    -- again instead of piling up a new lock per rolled-back first call.
    begin
      v_key := currval('q.session_key_seq');
    exception when object_not_in_prerequisite_state then
      v_key := nextval('q.session_key_seq');
    end;
    -- A session-level lock, held until this connection closes: the reaper
    -- probes it with pg_try_advisory_xact_lock, and a lock it can take
    -- proves the claimer is gone (no superuser, no pg_stat_activity needed).
    -- (Re-entrant: taking a lock this session holds only bumps a local count.)
    perform pg_advisory_lock(q.lock_space(), v_key);
    perform set_config('pgq.session_key', v_key::text, false);
  end if;
  return v_key;
end
$$;

comment on function q.session_key() is
  'This session''s liveness key, taken on first call and held as an advisory lock until the connection closes. q.claim records it so q.reap can free the jobs of a dead session within a second. A worker may hold it on one long-lived connection and pass it as q.claim(owner => key) from pooled ones.';

revoke all on function q.session_key() from public;
grant execute on function q.session_key() to pgq_worker;
