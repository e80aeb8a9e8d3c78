-- Tables and sequences (in q_data) are private to the owner: every role goes
-- through the SECURITY DEFINER functions. Roles get USAGE on the schema
-- (to call them) and nothing else.
begin;
select plan(98);

select table_privs_are('q_data', t, r, '{}'::name[], format('%s has no privilege on table q_data.%s', r, t))
  from unnest(array['queue', 'job', 'job_history', 'session', 'reaper_turn', 'enqueue_receipt', 'schedule', 'schedule_fire',
                    'queue_slot', 'key_slot', 'rate_slot', 'tally', 'throughput', 'throughput_total']::name[]) t,
       unnest(array['pgq_producer', 'pgq_worker', 'pgq_admin', 'pgq_viewer', 'public']::name[]) r
 order by t, r;

select sequence_privs_are('q_data', s, r, '{}'::name[], format('%s has no privilege on sequence q_data.%s', r, s))
  from unnest(array['queue_id_seq', 'job_id_seq', 'session_seq', 'schedule_id_seq']::name[]) s,
       unnest(array['pgq_producer', 'pgq_worker', 'pgq_admin', 'pgq_viewer', 'public']::name[]) r
 order by s, r;

-- Catalog-wide, so a relation added later (or alembic_version) is covered too.
select is(
  array(select format('%s: %s', c.oid::regclass, a.grantee::regrole)
          from pg_catalog.pg_class c, aclexplode(c.relacl) a
         where c.relnamespace in ('q'::regnamespace, 'q_data'::regnamespace) and a.grantee <> c.relowner
         order by 1),
  '{}'::text[],
  'no relation in q or q_data has an ACL entry for anyone but its owner');

select is(
  array(select format('%s.%s', a.attrelid::regclass, a.attname)
          from pg_catalog.pg_attribute a
          join pg_catalog.pg_class c on c.oid = a.attrelid
         where c.relnamespace in ('q'::regnamespace, 'q_data'::regnamespace) and a.attacl is not null
         order by 1),
  '{}'::text[],
  'no column in q or q_data has column-level privileges');

select schema_privs_are('q', 'pgq_producer', array['USAGE'], 'pgq_producer may use schema q (to call functions)');
select schema_privs_are('q', 'pgq_worker', array['USAGE'], 'pgq_worker may use schema q (to call functions)');
select schema_privs_are('q', 'pgq_admin', array['USAGE'], 'pgq_admin may use schema q (to call functions)');
select schema_privs_are('q', 'pgq_viewer', array['USAGE'], 'pgq_viewer may use schema q (to call functions)');
select schema_privs_are('q', 'public', '{}'::name[], 'PUBLIC may not even use schema q');

select is(
  (select count(*)::integer from pg_catalog.pg_default_acl d where d.defaclnamespace in ('q'::regnamespace, 'q_data'::regnamespace)),
  0,
  'no default privileges hand new objects in q to anyone');

select * from finish();
rollback;
