-- pgq_monitor (0008, design.md#a-monitoring-role-without-payloads): what an exporter needs (q.stats, q.throughput,
-- q.throughput_totals, q.limits, q.health) and nothing that carries a
-- payload, an error text or a job list; it changes nothing. pgq_viewer is a
-- member (it sees what a monitor sees), and pgq_admin through the viewer.
begin;
select plan(16);

select q.enqueue('priv', '{"card": "4111 1111 1111 1111"}') as job_id \gset
select q.configure('limited', concurrency => 2) \g /dev/null

select ok(pg_has_role('pgq_viewer', 'pgq_monitor', 'member'), 'pgq_viewer is a member of pgq_monitor');
select ok(pg_has_role('pgq_admin', 'pgq_monitor', 'member'), 'pgq_admin is too (through pgq_viewer)');
select ok(not pg_has_role('pgq_monitor', 'pgq_viewer', 'member') and not pg_has_role('pgq_monitor', 'pgq_admin', 'member')
          and not pg_has_role('pgq_monitor', 'pgq_worker', 'member') and not pg_has_role('pgq_monitor', 'pgq_producer', 'member'),
  'pgq_monitor is a member of no other pgq role');

set local role pgq_monitor;
select waiting as monitor_waiting from q.stats() where queue = 'priv' \gset
select count(*) as monitor_throughput from q.throughput() \gset
select count(*) as monitor_totals from q.throughput_totals() \gset
select concurrency as monitor_limit from q.limits() where queue = 'limited' \gset
select count(*) > 0 as monitor_health from q.health() \gset
reset role;

select is(:monitor_waiting::integer, 1, 'a monitor can read q.stats');
select is(:monitor_throughput::integer + :monitor_totals::integer, 0, 'a monitor can read q.throughput and q.throughput_totals');
select is(:monitor_limit::integer, 2, 'a monitor can read q.limits');
select ok(:'monitor_health'::boolean, 'a monitor can run q.health');

select throws_ok($$ set local role pgq_monitor; select * from q.jobs(queue => 'priv') $$,
  '42501', null, 'a monitor cannot list jobs (payloads)');
select throws_ok($$ set local role pgq_monitor; select * from q.job_page('priv') $$,
  '42501', null, 'a monitor cannot page jobs (payloads)');
select throws_ok(format($$ set local role pgq_monitor; select * from q.explain(%s) $$, :job_id),
  '42501', null, 'a monitor cannot explain a job');
select throws_ok($$ set local role pgq_monitor; select * from q.schedules() $$,
  '42501', null, 'a monitor cannot read schedules (their payloads)');
select throws_ok(format($$ set local role pgq_monitor; select q.flow_block_reason(%s) $$, :job_id),
  '42501', null, 'a monitor cannot read a job''s block reason');
select throws_ok($$ set local role pgq_monitor; select q.pause('priv') $$,
  '42501', null, 'a monitor cannot pause');
select throws_ok($$ set local role pgq_monitor; select q.enqueue('priv', '{}') $$,
  '42501', null, 'a monitor cannot enqueue');
select throws_ok($$ set local role pgq_monitor; select q.reap() $$,
  '42501', null, 'a monitor cannot reap');
select throws_ok($$ set local role pgq_monitor; select * from q_data.job $$,
  '42501', null, 'a monitor cannot read the tables');

select * from finish();
rollback;
