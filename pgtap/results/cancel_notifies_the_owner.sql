-- q.cancel of a running job sends NOTIFY pgq_cancel_<owner's session key>
-- with the job id, so the worker stops the handler at once (the heartbeat
-- stays the backstop). NOTIFY is delivered at commit, so the worker's
-- session and the admin's are dblink peers that commit; the test's own
-- queue is deleted again at the end.
begin;
select plan(3);
\ir ../_helpers.psql
create extension if not exists dblink;

select dblink_connect('worker', pg_temp.peer_conninfo()) \g /dev/null
select dblink_connect('admin', pg_temp.peer_conninfo()) \g /dev/null
select k as owner_key from dblink('worker', 'select q.session_key()') as t(k integer) \gset
select dblink_exec('worker', format('listen pgq_cancel_%s', :owner_key)) \g /dev/null
select dblink_exec('worker', 'listen pgq_cancel_0') \g /dev/null
select i as job_id from dblink('admin', $$ select q.enqueue('tap_cancel_push', '{}') $$) as t(i bigint) \gset
select i as claimed from dblink('worker', format($$ select id from q.claim('tap_cancel_push', owner => %s) $$, :owner_key))
  as t(i bigint) \gset
select is(:claimed::bigint, :job_id::bigint, '(the worker session claimed the job with its key)');

select b from dblink('admin', format('select q.cancel(%s)', :job_id)) as t(b boolean) \g /dev/null
-- a round trip on the worker's connection reads what arrived
select * from dblink('worker', 'select 1') as t(x integer) \g /dev/null
select results_eq(
  $$ select notify_name::text, extra from dblink_get_notify('worker') $$,
  format($$ values ('pgq_cancel_%s', '%s') $$, :owner_key, :job_id),
  'the owning session got one notification on its own channel, naming the job');

-- a waiting job has no owner: nobody is told
select i as waiting_id from dblink('admin', $$ select q.enqueue('tap_cancel_push', '{}') $$) as t(i bigint) \gset
select b from dblink('admin', format('select q.cancel(%s)', :waiting_id)) as t(b boolean) \g /dev/null
select * from dblink('worker', 'select 1') as t(x integer) \g /dev/null
select is((select count(*)::integer from dblink_get_notify('worker')), 0, 'cancelling a waiting job notifies nobody');

select * from dblink('admin', $$ select * from q.delete_queue('tap_cancel_push') $$) as t(n integer) \g /dev/null
select dblink_disconnect('worker') \g /dev/null
select dblink_disconnect('admin') \g /dev/null
select * from finish();
rollback;
