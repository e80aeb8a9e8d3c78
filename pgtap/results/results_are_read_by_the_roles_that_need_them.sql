-- q.result / q.results: pgq_viewer, pgq_producer, pgq_worker (and pgq_admin
-- through membership) read results; pgq_monitor, which sees no payload or
-- error, may not. q.await_results writes (a waiter row): producers and
-- workers, not viewers.
begin;
select plan(6);

select q.enqueue('roles', '{}') as job_id \gset

set local role pgq_viewer;
select is((select s.state from q.results(array[:job_id]::bigint[]) s), 'waiting', 'pgq_viewer reads q.results');
select throws_ok($$ select * from q.await_results('{1}') $$, '42501', null, 'pgq_viewer may not await');
reset role;

set local role pgq_producer;
select is((select s.state from q.result(:job_id) s), 'waiting', 'pgq_producer reads q.result');
select is((select s.state from q.await_results(array[:job_id]::bigint[], '1 minute') s), 'waiting', 'pgq_producer awaits');
reset role;

set local role pgq_monitor;
select throws_ok(format($$ select * from q.result(%s) $$, :job_id), '42501', null, 'pgq_monitor may not read results');
reset role;

set local role pgq_admin;
select is((select s.state from q.results(array[:job_id]::bigint[]) s), 'waiting', 'pgq_admin reads through membership');
reset role;

select * from finish();
rollback;
