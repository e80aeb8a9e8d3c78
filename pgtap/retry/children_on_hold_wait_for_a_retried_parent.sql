-- q.retry of a parent whose failure put children on hold (policy hold): they
-- wait for it again, pending, and run when it completes (revision 0010). A
-- child also held by another failed parent stays on hold until that one is
-- retried too (or an operator unblocks it).
begin;
select plan(7);

select q.enqueue('deps_rehold', '{}', priority => 2) as p1 \gset
select q.enqueue('deps_rehold', '{}', priority => 1) as p2 \gset
select q.enqueue_after('deps_rehold_child', '{}', array[:p1], on_parent_failure => 'hold') as solo \gset
select q.enqueue_after('deps_rehold_child', '{}', array[:p1, :p2], on_parent_failure => 'hold') as both \gset

select q.fail(c.id, c.token, 'fatal', retryable => false) from q.claim('deps_rehold', 2) c \g /dev/null
select is(array[(select state from q.jobs(id => :solo)), (select state from q.jobs(id => :both))],
          array['on_hold', 'on_hold'], 'both parents died: both children on hold');

select q.retry(:p1) \g /dev/null
select is((select state from q.jobs(id => :solo)), 'pending', 'retrying p1 makes its only-held child pending again');
select is((select state from q.jobs(id => :both)), 'on_hold', 'the child p2 holds stays on hold');

select q.retry(:p2) \g /dev/null
select is((select state from q.jobs(id => :both)), 'pending', 'retrying p2 too: pending, waiting for both');

select q.complete(c.id, c.token) from q.claim('deps_rehold', 2) c \g /dev/null
select is(array[(select state from q.jobs(id => :solo)), (select state from q.jobs(id => :both))],
          array['waiting', 'waiting'], 'both parents completed: both children are waiting');
select is((select count(*) from q.claim('deps_rehold_child', 10))::integer, 2, 'and both are claimed');
select is(array(select edge_outcome from q.job_graph(:both) where relation = 'parent'),
          array['completed', 'completed'], 'their edges say completed');

select * from finish();
rollback;
