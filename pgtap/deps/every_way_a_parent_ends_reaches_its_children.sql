-- Besides complete, fail and q.cancel (their own files): q.cancel_jobs, q.purge
-- (counts as cancelled) and q.reap (crash budget spent: dead) reach the
-- children, each by its policy (run here, so the child becomes waiting).
begin;
select plan(4);
\ir ../_helpers.psql

select q.configure('deps_end_reap', max_crashes => 1) \g /dev/null
select q.enqueue('deps_end_bulk', '{}') as bulk \gset
select q.enqueue('deps_end_purge', '{}') as purged \gset
select q.enqueue('deps_end_reap', '{}') as reaped \gset
select q.enqueue_after('deps_end_child', '{}', array[:bulk], on_parent_failure => 'run') as c1 \gset
select q.enqueue_after('deps_end_child', '{}', array[:purged], on_parent_failure => 'run') as c2 \gset
select q.enqueue_after('deps_end_child', '{}', array[:reaped], on_parent_failure => 'run') as c3 \gset

select q.cancel_jobs('deps_end_bulk') \g /dev/null
select q.purge('deps_end_purge') \g /dev/null
select id from q.claim('deps_end_reap', 1, lease => '10 milliseconds') \g /dev/null
select pg_sleep(0.05) \g /dev/null
select q.reap() \g /dev/null

select is((select state from q.jobs(id => :c1)), 'waiting', 'q.cancel_jobs of the parent reached the child');
select is((select state from q.jobs(id => :c2)), 'waiting', 'q.purge of the parent reached the child');
select is((select state from q.jobs(id => :reaped)), 'dead', 'the reaped parent is dead (crash budget spent)');
select is((select state from q.jobs(id => :c3)), 'waiting', 'and q.reap reached the child');

select * from finish();
rollback;
