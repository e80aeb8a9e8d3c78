-- on_parent_failure => 'hold': a cancelled parent puts the child on hold
-- (never claimed) until an operator calls q.unblock.
begin;
select plan(5);
\ir ../_helpers.psql

select q.enqueue('deps_hold', '{}') as parent \gset
select q.enqueue_after('deps_hold_child', '{}', array[:parent], on_parent_failure => 'hold') as child \gset

select q.cancel(:parent) \g /dev/null
select is((select state from q.jobs(id => :child)), 'on_hold', 'the child is on hold');
select is((select count(*) from q.claim('deps_hold_child'))::integer, 0, 'a job on hold is not claimed');
select is((select code from q.explain(:child)), 'on_hold', 'q.explain says on_hold');
select is(q.unblock(:child), true, 'q.unblock lets it go on');
select is(array(select id from q.claim('deps_hold_child')), array[:child]::bigint[], 'then it is claimed');

select * from finish();
rollback;
