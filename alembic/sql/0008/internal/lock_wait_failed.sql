create or replace function q.lock_wait_failed(call text, what text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_holders text;
begin
  -- Called from the handler of an admin call whose lock wait ran out (the
  -- call's own lock_timeout): the wait is over, so pg_blocking_pids cannot
  -- say who held the row. The candidates are the other transactions holding
  -- row locks on pgq's tables (RowShare: FOR UPDATE; RowExclusive: written),
  -- oldest first: a worker left idle in transaction after a claim, an open
  -- complete of a keyed job, a producer's open transaction.
  select string_agg(format('pid %s (role %s%s, %s, transaction open %s)', a.pid, a.usename,
                           case when a.application_name <> '' then ', ' || a.application_name else '' end,
                           a.state, date_trunc('second', clock_timestamp() - a.xact_start)),
                    '; ' order by a.xact_start)
    into v_holders
    from (select a.*
            from pg_catalog.pg_stat_activity a
           where a.pid <> pg_backend_pid()
             and exists (select from pg_catalog.pg_locks l
                          where l.pid = a.pid and l.locktype = 'relation' and l.granted
                            and l.mode in ('RowShareLock', 'RowExclusiveLock')
                            and l.relation in (select c.oid from pg_catalog.pg_class c
                                                where c.relnamespace = 'q_data'::regnamespace))
           order by a.xact_start
           limit 3) a;
  raise exception '% gave up after waiting % for a lock on %, held by another transaction%', lock_wait_failed.call,
    current_setting('lock_timeout'), lock_wait_failed.what,
    coalesce(' (the oldest holding row locks on pgq''s tables: ' || v_holders || ')', '')
    using errcode = '55P03',
          hint = 'admin calls wait at most 2 s, so they never stall behind an open transaction for long: end that transaction, or call again';
end
$$;

comment on function q.lock_wait_failed(text, text) is
  'Raises 55P03 for an admin call whose lock wait ran out, naming what it waited for and the oldest transactions holding row locks on pgq''s tables (pid, role, application, state, how long open).';

revoke all on function q.lock_wait_failed(text, text) from public;
