-- The advisory-lock class ("pgq\0") that pgq used up to revision 0002 for
-- session keys (objid >= 1), the reaper (objid 0) and the migration runner
-- (objid -1). Since 0003 pgq waits on no advisory lock (any login role can
-- take or hold them); the 0002 -> 0003 upgrade reads this class in pg_locks
-- to carry live 0002 sessions into q_data.session. Since 0008 the next class,
-- 1885827329, guards queue rows against the reaper's deletion of idle queues
-- (q.ensure_queue), with try-locks only: a role holding them slows enqueues
-- down (a row lock instead) and keeps names from being deleted, nothing more.
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
  'Advisory-lock class id pgq used up to revision 0002 (session keys, reaper, migrations); since 0003 pgq waits on no advisory lock (0008 try-locks class 1885827329, see q.ensure_queue).';

revoke all on function q.lock_space() from public;
