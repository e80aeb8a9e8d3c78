-- q.cancel of a parent reaches each child by the policy of its edge: cancel
-- (cascading down a chain), run, hold.
begin;
select plan(5);
\ir ../_helpers.psql

select q.enqueue('deps_cx', '{}') as root \gset
select q.enqueue_after('deps_cx', '{}', array[:root], on_parent_failure => 'cancel') as c1 \gset
select q.enqueue_after('deps_cx', '{}', array[:c1]) as c1_child \gset
select q.enqueue_after('deps_cx', '{}', array[:root], on_parent_failure => 'run') as c2 \gset
select q.enqueue_after('deps_cx', '{}', array[:root], on_parent_failure => 'hold') as c3 \gset

select is(q.cancel(:root), true, 'the root is cancelled');
select is((select state from q.jobs(id => :c1)), 'cancelled', 'cancel edge: the child is cancelled');
select is((select state from q.jobs(id => :c1_child)), 'cancelled', 'and so is its child');
select is((select state from q.jobs(id => :c2)), 'waiting', 'run edge: the child runs');
select is((select state from q.jobs(id => :c3)), 'on_hold', 'hold edge: the child is on hold');

select * from finish();
rollback;
