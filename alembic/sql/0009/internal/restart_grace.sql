-- How long a claim whose session ended with the server (a restart or a
-- failover, see q_data.server_start) stays with its worker before q.reap
-- treats it as crashed. A worker's pool and listener reconnect within a few
-- seconds of the server (Backoff caps the wait at 2 s) and then take their
-- claims back with q.adopt; 30 seconds leaves room for a slow recovery and
-- a failover's DNS or conninfo switch. The lease bounds it: a claim whose
-- lease runs out is reaped as always, grace or not.
create or replace function q.restart_grace()
returns interval
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select interval '30 seconds'
$$;

comment on function q.restart_grace() is
  'Grace period (30 s, bounded by each claim''s lease) during which claims whose session ended with the server (restart, failover) wait for their worker to take them back (q.adopt) before q.reap treats them as crashed.';

revoke all on function q.restart_grace() from public;
