-- Parents that ended before the child was enqueued: completed ones count as
-- done (kept in the history or not), a dead one applies the policy at once.
begin;
select plan(4);
\ir ../_helpers.psql

select q.configure('deps_kept', keep_completed => true) \g /dev/null
select q.enqueue('deps_kept', '{}') as kept \gset
select q.enqueue('deps_gone', '{}') as gone \gset
select q.enqueue('deps_gone', '{}') as dead \gset
select q.complete(c.id, c.token) from q.claim('deps_kept') c \g /dev/null
select q.complete(c.id, c.token) from q.claim('deps_gone') c where c.id = :gone \g /dev/null
select q.fail(c.id, c.token, 'x', retryable => false) from q.claim('deps_gone') c where c.id = :dead \g /dev/null

select q.enqueue_after('deps_late', '{}', array[:kept, :gone]) as c1 \gset
select q.enqueue_after('deps_late', '{}', array[:gone, :dead]) as c2 \gset
select q.enqueue_after('deps_late', '{}', array[:dead], on_parent_failure => 'run') as c3 \gset
select q.enqueue_after('deps_late', '{}', array[:dead], on_parent_failure => 'hold') as c4 \gset
select is((select state from q.jobs(id => :c1)), 'waiting', 'completed parents (kept or not): the child is waiting at once');
select is((select state from q.jobs(id => :c2)), 'cancelled', 'a dead parent, default policy: the child is cancelled at once');
select is((select state from q.jobs(id => :c3)), 'waiting', 'a dead parent, run policy: waiting');
select is((select state from q.jobs(id => :c4)), 'on_hold', 'a dead parent, hold policy: on hold');

select * from finish();
rollback;
