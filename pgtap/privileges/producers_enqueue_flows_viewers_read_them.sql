-- Producers enqueue flows and batches; viewers read flows and batches;
-- neither can unblock (an admin call) and a viewer cannot enqueue a flow.
begin;
select plan(7);

set local role pgq_producer;
select id as root from q.enqueue_flow('[{"ref": "r", "queue": "priv_flow", "payload": {}},
                                         {"ref": "c", "queue": "priv_flow", "payload": {}, "after": ["r"]}]') where ref = 'r' \gset
select q.create_batch('priv_flow_cb') as b \gset
select q.enqueue_after('priv_flow', '{}', array[:root], batch => :b) as child \gset
select q.seal_batch(:b) as sealed \gset
reset role;

select is((select count(*) from q_data.job where id >= :root)::integer, 3, 'a producer can enqueue a flow and a child');
select is(:'sealed'::boolean, true, 'a producer can create and seal a batch');

set local role pgq_viewer;
select is((select count(*) from q.job_graph(:root))::integer, 3, 'a viewer can read a flow');
select is((select members_left from q.batch(:b)), 1::bigint, 'a viewer can read a batch');
reset role;

select throws_ok($$ set local role pgq_viewer; select * from q.enqueue_flow('[{"queue": "priv_flow", "payload": {}}]') $$,
  '42501', null, 'a viewer cannot enqueue a flow');
select throws_ok(format($$ set local role pgq_producer; select q.unblock(%s) $$, :child),
  '42501', null, 'a producer cannot unblock');
select throws_ok(format($$ set local role pgq_worker; select q.unblock(%s) $$, :child),
  '42501', null, 'a worker cannot unblock');

select * from finish();
rollback;
