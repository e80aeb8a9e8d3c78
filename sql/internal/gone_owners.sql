-- The claim owners (session keys) whose session has provably ended: no
-- backend in pg_stat_activity has the pid and backend_start their q_data.session
-- row recorded, or there is no row. Replaces the advisory-lock probes of
-- 0002, which any login role could defeat by holding a key, and which the
-- claimer's own pg_advisory_unlock_all() or RESET ALL turned into a false
-- "crashed" verdict.
create or replace function q.gone_owners(max_keys integer)
returns integer[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  -- Restart without re-runs (0009): sessions registered before the server
  -- began serving ended with it (a restart, a failover), not with their
  -- worker, which reconnects and takes its claims back (q.adopt). They count
  -- as gone only once q.restart_grace() has passed; q.reap still ends any
  -- claim whose lease runs out, so the grace never outlives a lease. A
  -- session that ends while the server stays up is gone at once, as before.
  v_began  timestamptz := q.server_began();
  v_grace  boolean := clock_timestamp() < v_began + q.restart_grace();
begin
  -- PostgreSQL reads the backend table once per transaction and keeps that
  -- copy: a session that connected (and claimed) after an earlier read in
  -- this transaction would be missing from it and look gone. Read afresh.
  perform pg_stat_clear_snapshot();
  return array(
    with alive as materialized (
      select a.pid, a.backend_start from pg_stat_get_activity(null) a
    )
    select o.owner
      from (select distinct j.owner from q_data.job j
             where j.state = 'r' and j.owner is not null) o
      left join q_data.session s on s.key = o.owner
     where s.key is null
        or not exists (
             select from alive a
              where a.pid = s.pid
                -- Without the right to read another role's backend_start the
                -- pid alone decides: a re-used pid errs towards "alive", and
                -- the lease still ends such a claim.
                and (a.backend_start is null or s.backend_start is null
                     or a.backend_start = s.backend_start))
           and not (v_grace and s.registered_at < v_began)
     limit gone_owners.max_keys);
end
$$;

comment on function q.gone_owners(integer) is
  'Up to max_keys owners of running jobs whose session has ended (no live backend with the pid and backend_start of their q_data.session row, or no row). A session that ended with the server (registered before q.server_began()) counts only once q.restart_grace() has passed since then.';

revoke all on function q.gone_owners(integer) from public;
