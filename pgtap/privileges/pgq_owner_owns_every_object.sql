-- pgq's objects belong to the NOLOGIN role pgq_owner, so the SECURITY
-- DEFINER functions run with the rights of pgq's own objects, not as the
-- superuser that installed pgq (design.md#locks-no-other-role-can-take). Alembic's version table stays
-- with the migration runner.
begin;
select plan(6);

select is((select rolcanlogin or rolsuper or rolcreaterole or rolcreatedb or rolbypassrls or rolreplication
             from pg_roles where rolname = 'pgq_owner'),
  false, 'pgq_owner exists, cannot log in and has no special attribute');
select is(array(select r.rolname::text from pg_auth_members m join pg_roles r on r.oid = m.member
                 where m.roleid = 'pgq_owner'::regrole order by 1),
  '{}'::text[], 'nobody is a member of pgq_owner');
select is((select nspowner::regrole::text from pg_namespace where nspname = 'q'), 'pgq_owner', 'pgq_owner owns schema q');
select is(array(select p.oid::regprocedure::text from pg_proc p
                 where p.pronamespace = 'q'::regnamespace and p.proowner <> 'pgq_owner'::regrole order by 1),
  '{}'::text[], 'pgq_owner owns every function in q');
select is(array(select c.relname::text from pg_class c
                 where c.relnamespace = 'q'::regnamespace and c.relowner <> 'pgq_owner'::regrole
                   and c.relname not in ('alembic_version', 'alembic_version_pkc') order by 1),
  '{}'::text[], 'pgq_owner owns every table, index and sequence in q');
select is(array(select t.typname::text from pg_type t
                 where t.typnamespace = 'q'::regnamespace and t.typowner <> 'pgq_owner'::regrole
                   and t.typname not in ('alembic_version', '_alembic_version') order by 1),
  '{}'::text[], 'pgq_owner owns every type in q');

select * from finish();
rollback;
