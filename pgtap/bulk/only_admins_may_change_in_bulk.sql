-- Bulk calls are pgq_admin's: a viewer, a worker and a producer get 42501
-- and nothing changes; an admin may (positive control).
begin;
select plan(14);
\ir ../_helpers.psql

select q.enqueue('priv', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok(format($$ set local role %I; select * from q.%s $$, r, c), '42501', null, format('%s may not call q.%s', r, c))
  from unnest(array['pgq_viewer', 'pgq_worker', 'pgq_producer']) r,
       unnest(array['retry_dead(''priv'')', 'cancel_jobs(''priv'')', 'purge(''priv'')', 'delete_queue(''priv'')']) c;
select is(pg_temp.pgq_state(), :'before', 'nothing changed');

set local role pgq_admin;
select purged as admin_purged from q.purge('priv') \gset
reset role;
select is(:admin_purged::integer, 1, 'an admin may purge');

select * from finish();
rollback;
