-- Unknown parent ids (P0002), more than 10000 parents (54000), NULL in after
-- (22004) and an unknown policy (22023) are refused and write nothing.
begin;
select plan(5);
\ir ../_helpers.psql

select q.enqueue('deps_bad', '{}') as parent \gset
select pg_temp.pgq_state() || (select count(*) from q_data.job_dep)::text as before \gset

select throws_ok(format('select q.enqueue_after(%L, %L, array[%s, 9000000000000])', 'deps_bad', '{}', :parent),
                 'P0002', null, 'an unknown parent id is refused with P0002');
select throws_ok($$ select q.enqueue_after('deps_bad', '{}', array(select generate_series(1, 10001)::bigint)) $$,
                 '54000', null, 'more than 10000 parents: 54000');
select throws_ok(format('select q.enqueue_after(%L, %L, array[%s, null])', 'deps_bad', '{}', :parent),
                 '22004', null, 'NULL in after: 22004');
select throws_ok(format('select q.enqueue_after(%L, %L, array[%s], on_parent_failure => %L)', 'deps_bad', '{}', :parent, 'maybe'),
                 '22023', null, 'an unknown policy: 22023');
select is(pg_temp.pgq_state() || (select count(*) from q_data.job_dep)::text, :'before', 'nothing was written');

select * from finish();
rollback;
