-- Acting as pgq_viewer (a dashboard's read-only mode, a metrics exporter):
-- every read works (positive controls), every change and the tables are
-- refused with 42501. An admin is a viewer too, through membership.
begin;
select plan(14);

select q.enqueue('priv', '{"n": 1}') as job_id \gset

select ok(pg_has_role('pgq_admin', 'pgq_viewer', 'member'), 'pgq_admin is a member of pgq_viewer');
select ok(not pg_has_role('pgq_viewer', 'pgq_admin', 'member')
          and not pg_has_role('pgq_viewer', 'pgq_worker', 'member')
          and not pg_has_role('pgq_viewer', 'pgq_producer', 'member'),
  'pgq_viewer is a member of no other pgq role');

set local role pgq_viewer;
select waiting as viewer_waiting from q.stats() where queue = 'priv' \gset
select count(*) as viewer_jobs from q.jobs(queue => 'priv') \gset
select code as viewer_code from q.explain(:job_id) \gset
select count(*) > 0 as viewer_health from q.health() \gset
select count(*) as viewer_throughput from q.throughput() \gset
select count(*) as viewer_totals from q.throughput_totals() \gset
reset role;

select is(:viewer_waiting::integer, 1, 'a viewer can read q.stats');
select is(:viewer_jobs::integer, 1, 'a viewer can list jobs');
select is(:'viewer_code'::text, 'ready', 'a viewer can explain a job');
select ok(:'viewer_health'::boolean, 'a viewer can run q.health');
-- (0 + 0: no outcome yet, and since 0008 q.throughput_totals lists only queues with one.)
select is(:viewer_throughput::integer + :viewer_totals::integer, 0 + 0, 'a viewer can read q.throughput and q.throughput_totals');

select throws_ok($$ set local role pgq_viewer; select q.pause('priv') $$,
  '42501', null, 'a viewer cannot pause');
select throws_ok(format($$ set local role pgq_viewer; select q.cancel(%s) $$, :job_id),
  '42501', null, 'a viewer cannot cancel');
select throws_ok($$ set local role pgq_viewer; select q.enqueue('priv', '{}') $$,
  '42501', null, 'a viewer cannot enqueue');
select throws_ok($$ set local role pgq_viewer; select * from q.claim('priv') $$,
  '42501', null, 'a viewer cannot claim');
select throws_ok($$ set local role pgq_viewer; select q.reap() $$,
  '42501', null, 'a viewer cannot reap');
select throws_ok($$ set local role pgq_viewer; select * from q_data.job $$,
  '42501', null, 'a viewer cannot select from q_data.job');
select throws_ok($$ set local role pgq_viewer; select q.roll_up_tally(10) $$,
  '42501', null, 'a viewer cannot call an internal function');

select * from finish();
rollback;
