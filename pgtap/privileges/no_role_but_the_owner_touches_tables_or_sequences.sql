-- Tables and sequences in q are private to the owner: every role goes
-- through the SECURITY DEFINER functions. Roles get USAGE on the schema
-- (to call them) and nothing else.
begin;
select plan(98);

select table_privs_are('q', t, r, '{}'::name[], format('%s has no privilege on table q.%s', r, t))
  from unnest(array['queue', 'job', 'job_history', 'session', 'reaper_turn', 'enqueue_receipt', 'schedule', 'schedule_fire',
                    'queue_slot', 'key_slot', 'rate_slot', 'tally', 'throughput', 'throughput_total']::name[]) t,
       unnest(array['pgq_producer', 'pgq_worker', 'pgq_admin', 'pgq_viewer', 'public']::name[]) r
 order by t, r;

select sequence_privs_are('q', s, r, '{}'::name[], format('%s has no privilege on sequence q.%s', r, s))
  from unnest(array['queue_id_seq', 'job_id_seq', 'session_seq', 'schedule_id_seq']::name[]) s,
       unnest(array['pgq_producer', 'pgq_worker', 'pgq_admin', 'pgq_viewer', 'public']::name[]) r
 order by s, r;

-- Catalog-wide, so a relation added later (or alembic_version) is covered too.
select is(
  array(select format('%s: %s', c.oid::regclass, a.grantee::regrole)
          from pg_catalog.pg_class c, aclexplode(c.relacl) a
         where c.relnamespace = 'q'::regnamespace and a.grantee <> c.relowner
         order by 1),
  '{}'::text[],
  'no relation in q has an ACL entry for anyone but its owner');

select is(
  array(select format('%s.%s', a.attrelid::regclass, a.attname)
          from pg_catalog.pg_attribute a
          join pg_catalog.pg_class c on c.oid = a.attrelid
         where c.relnamespace = 'q'::regnamespace and a.attacl is not null
         order by 1),
  '{}'::text[],
  'no column in q has column-level privileges');

select schema_privs_are('q', 'pgq_producer', array['USAGE'], 'pgq_producer may use schema q (to call functions)');
select schema_privs_are('q', 'pgq_worker', array['USAGE'], 'pgq_worker may use schema q (to call functions)');
select schema_privs_are('q', 'pgq_admin', array['USAGE'], 'pgq_admin may use schema q (to call functions)');
select schema_privs_are('q', 'pgq_viewer', array['USAGE'], 'pgq_viewer may use schema q (to call functions)');
select schema_privs_are('q', 'public', '{}'::name[], 'PUBLIC may not even use schema q');

select is(
  (select count(*)::integer from pg_catalog.pg_default_acl d where d.defaclnamespace = 'q'::regnamespace),
  0,
  'no default privileges hand new objects in q to anyone');

select * from finish();
rollback;
