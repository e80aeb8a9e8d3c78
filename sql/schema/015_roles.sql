-- Least-privilege roles (cluster-wide, so several databases can share them).
--   pgq_owner     owns every pgq object; NOLOGIN, never granted to anyone:
--                 the SECURITY DEFINER functions run as this role, not as
--                 whichever superuser installed pgq (sql/owner.sql)
--   pgq_producer  may enqueue
--   pgq_worker    may claim, heartbeat, complete, fail, and run the reaper
--   pgq_admin     everything, including cancel/retry/pause/configure/stats
-- Grant them to your login roles: GRANT pgq_worker TO my_worker_login;
-- Roles are created only when missing, and a concurrent creation in another
-- database of the same cluster is not an error.
do $$
declare
  v_role text;
begin
  foreach v_role in array array['pgq_owner', 'pgq_producer', 'pgq_worker', 'pgq_admin'] loop
    if not exists (select from pg_catalog.pg_roles where rolname = v_role) then
      begin
        execute format('create role %I nologin', v_role);
      exception when duplicate_object or unique_violation then
        null;
      end;
    end if;
  end loop;
end
$$;

grant usage on schema q to pgq_producer, pgq_worker, pgq_admin;

-- The admin can do what the other two can; membership keeps the matrix short.
do $$
begin
  if not pg_catalog.pg_has_role('pgq_admin', 'pgq_producer', 'member') then
    grant pgq_producer to pgq_admin;
  end if;
  if not pg_catalog.pg_has_role('pgq_admin', 'pgq_worker', 'member') then
    grant pgq_worker to pgq_admin;
  end if;
end
$$;

-- The owner reads other roles' backend_start in pg_stat_activity, the
-- liveness evidence of q_data.session (q.gone_owners). Without this it compares
-- the pid alone, which errs towards "alive" (the lease still ends a claim).
-- Granting it needs a superuser (or admin of the role): otherwise say so.
do $$
begin
  if not pg_catalog.pg_has_role('pgq_owner', 'pg_read_all_stats', 'member') then
    grant pg_read_all_stats to pgq_owner;
  end if;
exception when insufficient_privilege then
  raise notice 'pgq: could not grant pg_read_all_stats to pgq_owner (%); liveness falls back to the pid alone', sqlerrm;
end
$$;
