-- Hands every pgq object in schemas q and q_data to the NOLOGIN role pgq_owner, so the
-- SECURITY DEFINER functions run with the rights of pgq's own objects only,
-- not as whichever superuser installed pgq. Run last by install.sql and by
-- every revision that creates objects (after its own DDL). Alembic's version
-- table stays with the migration runner (env.py locks it during a run).
do $$
declare
  v_ddl text;
begin
  foreach v_ddl in array array(
    select format('alter schema q owner to pgq_owner')
    union all
    select format('alter schema q_data owner to pgq_owner')
    union all
    select format('alter function %s owner to pgq_owner', p.oid::regprocedure::text)
      from pg_catalog.pg_proc p
     where p.pronamespace = 'q'::regnamespace
       and p.proowner <> 'pgq_owner'::regrole
    union all
    -- Tables (their identity sequences and row types follow), standalone
    -- sequences, and composite types.
    select format('alter table %I.%I owner to pgq_owner', c.relnamespace::regnamespace::text, c.relname)
      from pg_catalog.pg_class c
     where c.relnamespace in ('q'::regnamespace, 'q_data'::regnamespace)
       and c.relkind in ('r', 'p')
       and c.relname <> 'alembic_version'
       and c.relowner <> 'pgq_owner'::regrole
    union all
    select format('alter sequence %I.%I owner to pgq_owner', c.relnamespace::regnamespace::text, c.relname)
      from pg_catalog.pg_class c
     where c.relnamespace in ('q'::regnamespace, 'q_data'::regnamespace)
       and c.relkind = 'S'
       and c.relowner <> 'pgq_owner'::regrole
       and not exists (select from pg_catalog.pg_depend d
                        where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype in ('a', 'i'))
    union all
    select format('alter type q.%I owner to pgq_owner', t.typname)
      from pg_catalog.pg_type t
      join pg_catalog.pg_class c on c.oid = t.typrelid
     where t.typnamespace = 'q'::regnamespace
       and c.relkind = 'c'
       and t.typowner <> 'pgq_owner'::regrole
  ) loop
    execute v_ddl;
  end loop;
end
$$;
