-- A child enqueued after two parents is pending (not claimable) until the
-- second parent completes, and becomes waiting in that parent's transaction.
begin;
select plan(6);
\ir ../_helpers.psql

select q.enqueue('deps_a', '{"p": 1}') as p1 \gset
select q.enqueue('deps_a', '{"p": 2}') as p2 \gset
select q.enqueue_after('deps_b', '{"child": true}', array[:p1, :p2]) as child \gset

select is((select state from q.jobs(id => :child)), 'pending', 'the child is pending');
select is((select count(*) from q.claim('deps_b', 10))::integer, 0, 'a pending child is not claimed');

select q.complete(id, token) from q.claim('deps_a') where id = :p1 \g /dev/null
select is((select state from q.jobs(id => :child)), 'pending', 'one parent completed: still pending');

select q.complete(c.id, c.token) from q.claim('deps_a') c where c.id = :p2 \g /dev/null
select is((select state from q.jobs(id => :child)), 'waiting', 'the last parent completed: waiting, same transaction');
select is(array(select id from q.claim('deps_b', 10)), array[:child]::bigint[], 'now it is claimed');
select is(q.parents(:child), array[:p1, :p2]::bigint[], 'q.parents lists both parents');

select * from finish();
rollback;
