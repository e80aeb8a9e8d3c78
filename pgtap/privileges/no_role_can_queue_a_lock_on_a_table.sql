-- No role pgq grants can name one of pgq's tables, so none can queue a lock
-- on it. PostgreSQL queues the lock of CREATE RULE (ACCESS EXCLUSIVE) and
-- CREATE TRIGGER (SHARE ROW EXCLUSIVE) before it checks ownership, and every
-- later access to the table waits behind the request: with the tables in
-- schema q (revision 0007), a pgq_viewer's CREATE RULE behind another
-- session's open read stopped every claim and enqueue. In schema q_data, on
-- which these roles have no USAGE, each statement fails with 42501 while the
-- name is resolved, before any lock is requested. (That no lock queue forms
-- under load, with real sessions, is tests/reliability/test_ddl_lock_queue.py.)
begin;
select plan(16 * 5 * 3);

create temporary table statements on commit drop as
select r.role, t.relname, s.kind,
       format(s.template, 'q_data.' || pg_catalog.quote_ident(t.relname)) as sql
  from unnest(array['pgq_viewer', 'pgq_producer', 'pgq_worker', 'pgq_admin', 'nobody_in_particular']) r(role)
 cross join (select c.relname from pg_catalog.pg_class c
              where c.relnamespace = 'q_data'::regnamespace and c.relkind = 'r') t
 cross join (values
   ('create rule', 'create rule pgq_squat as on insert to %s do instead nothing'),
   ('create trigger', 'create trigger pgq_squat before insert on %s for each row execute function pg_catalog.suppress_redundant_updates_trigger()'),
   ('lock', 'lock table %s in access share mode')) s(kind, template);
grant select on statements to public;

create role nobody_in_particular;

select throws_ok(
         format('set local role %I; %s', st.role, st.sql),
         '42501',
         'permission denied for schema q_data',
         format('%s: %s on q_data.%s fails at name resolution', st.role, st.kind, st.relname))
  from statements st
 order by st.role, st.relname, st.kind;

select * from finish();
rollback;
