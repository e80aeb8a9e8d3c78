-- Who holds a claim: the q_data.session row of its owner key (revision 0003's
-- session registry) and the live backend with that pid and backend_start,
-- the same test q.gone_owners (the reaper) applies. Reading it changes nothing.
create or replace function q.claim_holder(owner integer)
returns table (pid integer, application_name text, backend_start timestamptz, state text, xact_start timestamptz)
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select s.pid, a.application_name::text, coalesce(a.backend_start, s.backend_start), a.state, a.xact_start
    from q_data.session s
    join pg_catalog.pg_stat_activity a
      on a.pid = s.pid
     and (a.backend_start is null or s.backend_start is null or a.backend_start = s.backend_start)
   where s.key = claim_holder.owner
   limit 1
$$;

comment on function q.claim_holder(integer) is
  'The live session behind liveness key owner (see q.session_key): pid, application name, connection start, state, transaction start; no row when that session is gone.';

revoke all on function q.claim_holder(integer) from public;
