-- q.retry puts a job back in its graph (revision 0010): a child cancelled
-- because its parent died waits again, pending, for that parent once an
-- operator has retried the parent; it runs only after the parent completes.
-- 0009 put it back as waiting, claimable before its parent had run.
begin;
select plan(9);

select q.enqueue('deps_retry', '{}') as parent \gset
select q.enqueue_after('deps_retry_child', '{"n": 1}', array[:parent]) as child \gset

select q.fail(c.id, c.token, 'fatal', retryable => false) from q.claim('deps_retry') c \g /dev/null
select is((select state from q.jobs(id => :child)), 'cancelled', 'the parent died: the child is cancelled (default policy)');

select is(q.retry(:parent), :parent::bigint, 'the operator retries the parent first');
select is(q.retry(:child), :child::bigint, 'then the child');
select is((select state from q.jobs(id => :child)), 'pending', 'the child waits for its parent again');
select is((select count(*) from q.claim('deps_retry_child'))::integer, 0, 'a pending child is not claimed');
select is(array(select coalesce(edge_outcome, 'open') from q.job_graph(:child) where relation = 'parent'),
          array['open'], 'q.job_graph shows the edge unsettled again');

select q.complete(c.id, c.token) from q.claim('deps_retry') c \g /dev/null
select is((select state from q.jobs(id => :child)), 'waiting', 'the parent completed: the child is waiting');
select is(array(select id from q.claim('deps_retry_child')), array[:child]::bigint[], 'and is claimed');

-- A child retried while its parent is still dead does not wait for it (the
-- edge stays settled): retry the parent first to have it wait.
select q.enqueue('deps_retry', '{}') as parent2 \gset
select q.enqueue_after('deps_retry_child2', '{}', array[:parent2]) as child2 \gset
select q.fail(c.id, c.token, 'fatal', retryable => false) from q.claim('deps_retry') c \g /dev/null
select q.retry(:child2) \g /dev/null
select is((select state from q.jobs(id => :child2)), 'waiting', 'retried alone, with its parent dead, the child is waiting');

select * from finish();
rollback;
