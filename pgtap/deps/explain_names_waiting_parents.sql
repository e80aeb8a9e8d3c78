-- q.explain of a pending job names the parents it still waits for.
begin;
select plan(3);
\ir ../_helpers.psql

select q.enqueue('deps_ex', '{}') as p1 \gset
select q.enqueue('deps_ex', '{}') as p2 \gset
select q.enqueue_after('deps_ex', '{}', array[:p1, :p2]) as child \gset
select q.complete(c.id, c.token) from q.claim('deps_ex') c where c.id = :p1 \g /dev/null

select is((select code from q.explain(:child)), 'waiting_for_parents', 'code waiting_for_parents');
select is((select detail -> 'waiting_for' from q.explain(:child)), jsonb_build_array(:p2::bigint), 'detail lists the parent not ended yet');
select matches((select message from q.explain(:child)), 'waits for 1 parent', 'the sentence counts them');

select * from finish();
rollback;
