-- Removes every pgq object from schemas q and q_data but Alembic's version
-- table (the downgrade of the first revision runs a frozen copy of an older
-- version of this file). The roles stay: they are cluster-wide and other
-- databases may use them.
do $$
declare
  v_ddl text;
begin
  -- Names are read before anything is dropped: a cascade would otherwise
  -- leave the loop holding OIDs of functions that no longer exist.
  foreach v_ddl in array array(
    select format('drop function if exists %s cascade', p.oid::regprocedure::text)
      from pg_catalog.pg_proc p
     where p.pronamespace = 'q'::regnamespace
    union all
    select format('drop table if exists %I.%I cascade', c.relnamespace::regnamespace::text, c.relname)
      from pg_catalog.pg_class c
     where c.relnamespace in ('q'::regnamespace, 'q_data'::regnamespace)
       and c.relkind in ('r', 'p')
       and c.relname <> 'alembic_version'
    union all
    select format('drop sequence if exists %I.%I cascade', c.relnamespace::regnamespace::text, c.relname)
      from pg_catalog.pg_class c
     where c.relnamespace in ('q'::regnamespace, 'q_data'::regnamespace) and c.relkind = 'S'
    union all
    select format('drop type if exists q.%I cascade', c.relname)
      from pg_catalog.pg_class c
     where c.relnamespace = 'q'::regnamespace and c.relkind = 'c'
  ) loop
    execute v_ddl;
  end loop;
end
$$;

drop schema if exists q_data;
