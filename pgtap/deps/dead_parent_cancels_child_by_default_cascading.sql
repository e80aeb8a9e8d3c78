-- The default policy: a parent that dies cancels its child, and the cancel
-- cascades to the child's own children (whatever their policy is cancel).
begin;
select plan(4);
\ir ../_helpers.psql

select q.enqueue('deps_dead', '{}') as parent \gset
select q.enqueue_after('deps_dead', '{}', array[:parent]) as child \gset
select q.enqueue_after('deps_dead', '{}', array[:child]) as grandchild \gset
select q.enqueue('deps_dead', '{}') as bystander \gset

select is(q.fail(c.id, c.token, 'fatal', retryable => false), 'dead', 'the parent dies')
  from q.claim('deps_dead') c where c.id = :parent;
select is((select state from q.jobs(id => :child)), 'cancelled', 'its child is cancelled');
select is((select state from q.jobs(id => :grandchild)), 'cancelled', 'and the child''s child too');
select is((select state from q.jobs(id => :bystander)), 'waiting', 'an unrelated job is untouched');

select * from finish();
rollback;
