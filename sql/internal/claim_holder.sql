-- Who holds a claim's liveness evidence, read from pg_locks (no lock is
-- taken, unlike the reaper's probe, so asking changes nothing).
-- HOOK(hardening, revision 0003): when q.session (pid + backend_start checked
-- against pg_stat_activity) replaces the advisory-lock keys, read it here.
create or replace function q.claim_holder(owner integer)
returns table (pid integer, application_name text, backend_start timestamptz, state text, xact_start timestamptz)
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select l.pid, a.application_name::text, a.backend_start, a.state, a.xact_start
    from pg_catalog.pg_locks l
    left join pg_catalog.pg_stat_activity a on a.pid = l.pid
   where l.locktype = 'advisory'
     and l.database = (select d.oid from pg_catalog.pg_database d where d.datname = pg_catalog.current_database())
     and l.classid = q.lock_space()::oid
     and l.objid = claim_holder.owner::oid
     and l.objsubid = 2
     and l.granted
     and l.mode = 'ExclusiveLock'
   limit 1
$$;

comment on function q.claim_holder(integer) is
  'The session holding liveness key owner (see q.session_key): pid, application name, connection start, state, transaction start; no row when that session is gone.';

revoke all on function q.claim_holder(integer) from public;
