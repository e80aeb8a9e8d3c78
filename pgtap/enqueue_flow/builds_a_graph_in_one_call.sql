-- q.enqueue_flow enqueues a diamond (a -> b, c -> d) with local refs and an
-- edge to an existing job, returns the ids in input order, and the graph runs
-- in order.
begin;
select plan(5);
\ir ../_helpers.psql

select q.enqueue('flow_ext', '{}') as ext \gset
create temp table f as
  select * from q.enqueue_flow(jsonb_build_array(
    '{"ref": "a", "queue": "flow_g", "payload": {"n": "a"}}'::jsonb,
    '{"ref": "b", "queue": "flow_g", "payload": {"n": "b"}, "after": ["a"]}'::jsonb,
    '{"ref": "c", "queue": "flow_g", "payload": {"n": "c"}, "after": ["a"]}'::jsonb,
    jsonb_build_object('ref', 'd', 'queue', 'flow_g', 'payload', '{"n": "d"}'::jsonb, 'after', jsonb_build_array('b', 'c', :ext))));

select is(array(select ref from f), array['a', 'b', 'c', 'd'], 'refs come back in input order');
select is(array(select payload ->> 'n' from q.claim('flow_g', 10)), array['a'], 'only the root is claimable');
select q.complete(j.id, j.token) from q_data.job j where j.state = 'r' \g /dev/null
select is(array(select payload ->> 'n' from q.claim('flow_g', 10) order by 1), array['b', 'c'], 'then both middle jobs');
select q.complete(j.id, j.token) from q_data.job j where j.state = 'r' \g /dev/null
select is((select state from q.jobs(id => (select id from f where ref = 'd'))), 'pending', 'd still waits for the existing job');
select q.complete(c.id, c.token) from q.claim('flow_ext') c \g /dev/null
select is(array(select payload ->> 'n' from q.claim('flow_g', 10)), array['d'], 'and runs once it completed');

select * from finish();
rollback;
