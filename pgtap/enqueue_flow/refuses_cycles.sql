-- A cycle (a -> b -> c -> a, or a job after itself) is refused with 22023
-- and nothing is written.
begin;
select plan(3);
\ir ../_helpers.psql

select pg_temp.pgq_state() || (select count(*) from q_data.job_dep)::text as before \gset
select throws_ok($$ select * from q.enqueue_flow('[
    {"ref": "a", "queue": "flow_cyc", "payload": {}, "after": ["c"]},
    {"ref": "b", "queue": "flow_cyc", "payload": {}, "after": ["a"]},
    {"ref": "c", "queue": "flow_cyc", "payload": {}, "after": ["b"]},
    {"ref": "d", "queue": "flow_cyc", "payload": {}}]') $$,
  '22023', null, 'a three-job cycle is refused');
select throws_ok($$ select * from q.enqueue_flow('[{"ref": "a", "queue": "flow_cyc", "payload": {}, "after": ["a"]}]') $$,
  '22023', 'job a waits for itself', 'a job after itself is refused');
select is(pg_temp.pgq_state() || (select count(*) from q_data.job_dep)::text, :'before', 'nothing was written');

select * from finish();
rollback;
