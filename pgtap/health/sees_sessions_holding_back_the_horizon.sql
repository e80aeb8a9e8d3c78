-- A session idle in transaction with an xid holds back vacuum of every
-- table: q.health names it (pid, application name, idle in transaction) with
-- advice. (A planted session over dblink; pytest does the same with a real
-- client in tests/core/test_health.py.)
begin;
select plan(5);
\ir ../_helpers.psql
create extension if not exists dblink;

select dblink_connect('idler', pg_temp.peer_conninfo()) \g /dev/null
select dblink_exec('idler', 'begin') \g /dev/null
select x from dblink('idler', 'select pg_current_xact_id()::text') as t(x text) \g /dev/null
select p as idler_pid from dblink('idler', 'select pg_backend_pid()') as t(p integer) \gset

select results_eq(
  format($$ select check_name, (detail ->> 'idle_in_transaction')::boolean, detail ->> 'application_name'
              from q.health() where object = 'pid %s' $$, :idler_pid),
  $$ values ('xmin_horizon', true, 'pgtap_peer') $$,
  'the idle-in-transaction session is listed under xmin_horizon, with its application name');
select matches((select advice from q.health() where object = format('pid %s', :idler_pid)),
  format('pg_terminate_backend\(%s\)', :idler_pid), 'the advice names the way out');
select ok((select severity in ('info', 'warning', 'critical') from q.health() where object = format('pid %s', :idler_pid)),
  'it has a severity (info while young, warning after a minute, critical after ten)');
select is((select count(*)::integer from q.health() where check_name = 'xmin_horizon' and severity = 'ok'), 0,
  'and the all-clear row is gone');
select dblink_exec('idler', 'rollback') \g /dev/null
-- pg_stat_activity is read once per transaction; read it afresh.
select pg_stat_clear_snapshot() \g /dev/null
select is((select count(*)::integer from q.health() where object = format('pid %s', :idler_pid)), 0,
  'once it ends its transaction (still connected) it is no longer listed');
select dblink_disconnect('idler') \g /dev/null

select * from finish();
rollback;
