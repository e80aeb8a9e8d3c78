-- pgq's roles, for a cluster where the database owner who installs pgq may
-- not create roles (no superuser, no CREATEROLE: managed PostgreSQL, a DBA
-- who keeps role management to themselves). Run it once per cluster as a
-- role with CREATEROLE (or a superuser), naming the installer:
--
--   psql -v installer=app_owner -f sql/roles.sql
--
-- then `pgq migrate` as app_owner. (A role with CREATEROLE needs none of
-- this: the migration makes the roles and its own membership in pgq_owner.)
\set ON_ERROR_STOP on
select format('create role %I nologin', r)
  from unnest(array['pgq_owner', 'pgq_producer', 'pgq_worker', 'pgq_admin', 'pgq_viewer', 'pgq_monitor']) r
 where not exists (select from pg_catalog.pg_roles o where o.rolname = r) \gexec
select format('grant %I to %I', r, m)
  from (values ('pgq_admin', 'pgq_producer'), ('pgq_admin', 'pgq_worker'), ('pgq_admin', 'pgq_viewer'),
               ('pgq_viewer', 'pgq_monitor')) x(m, r)
 where not pg_catalog.pg_has_role(m, r, 'member') \gexec
-- The installer hands pgq's objects to pgq_owner, which needs membership.
select format('grant pgq_owner to %I', :'installer')
 where not pg_catalog.pg_has_role(:'installer', 'pgq_owner', 'member') \gexec
