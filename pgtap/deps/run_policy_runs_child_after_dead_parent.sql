-- on_parent_failure => 'run': a dead parent counts as ended; the child runs
-- once its other parents have ended too.
begin;
select plan(3);
\ir ../_helpers.psql

select q.enqueue('deps_run', '{}') as p1 \gset
select q.enqueue('deps_run', '{}') as p2 \gset
select q.enqueue_after('deps_run_child', '{}', array[:p1, :p2], on_parent_failure => 'run') as child \gset

select q.fail(c.id, c.token, 'fatal', retryable => false) from q.claim('deps_run') c where c.id = :p1 \g /dev/null
select is((select state from q.jobs(id => :child)), 'pending', 'one parent dead, one running: still pending');
select q.complete(c.id, c.token) from q.claim('deps_run') c where c.id = :p2 \g /dev/null
select is((select state from q.jobs(id => :child)), 'waiting', 'the other parent completed: the child runs anyway');
select is(array(select edge_outcome from q.job_graph(:child) where relation = 'parent' order by job_id),
          array['dead', 'completed'], 'q.flow shows how each edge ended');

select * from finish();
rollback;
