-- The advisory-lock class ("pgq\0") shared by the session keys (objid >= 1),
-- the reaper (objid 0) and the migration runner (objid -1). Two-int advisory
-- locks live in their own key space, apart from single-bigint ones.
create or replace function q.lock_space()
returns integer
language plpgsql
immutable
parallel safe
set search_path = pg_catalog, pg_temp
as $$
begin
  return 1885827328;
end
$$;

comment on function q.lock_space() is
  'Advisory-lock class id used by pgq: (lock_space, key) for session keys, (lock_space, 0) for the reaper, (lock_space, -1) for migrations.';

revoke all on function q.lock_space() from public;
