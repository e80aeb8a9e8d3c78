-- One bad job (unknown ref, unknown existing id, bad option) makes the whole
-- flow fail: no job and no edge of it is written.
begin;
select plan(4);
\ir ../_helpers.psql

select pg_temp.pgq_state() || (select count(*) from q_data.job_dep)::text as before \gset
select throws_ok($$ select * from q.enqueue_flow('[
    {"ref": "a", "queue": "flow_aon", "payload": {}},
    {"ref": "b", "queue": "flow_aon", "payload": {}, "after": ["nope"]}]') $$,
  '22023', null, 'an unknown ref');
select throws_ok($$ select * from q.enqueue_flow('[
    {"ref": "a", "queue": "flow_aon", "payload": {}},
    {"ref": "b", "queue": "flow_aon", "payload": {}, "after": ["a", 9000000000000]}]') $$,
  'P0002', null, 'an unknown existing job id');
select throws_ok($$ select * from q.enqueue_flow('[
    {"ref": "a", "queue": "flow_aon", "payload": {}},
    {"ref": "b", "queue": "flow_aon", "payload": {}, "after": ["a"], "on_parent_failure": "sometimes"}]') $$,
  '22023', null, 'an unknown policy');
select is(pg_temp.pgq_state() || (select count(*) from q_data.job_dep)::text, :'before', 'nothing was written');

select * from finish();
rollback;
