-- A child with a concurrency key whose parents end is admitted like any due
-- job: it takes a key slot, or is held when the key's slots are taken.
begin;
select plan(2);
\ir ../_helpers.psql

select q.configure('deps_key', key_concurrency => 1) \g /dev/null
select q.enqueue('deps_key', '{}', concurrency_key => 'k') as busy \gset
select q.enqueue('deps_parent', '{}') as parent \gset
select q.enqueue_after('deps_key', '{}', array[:parent], concurrency_key => 'k') as child \gset
select q.complete(c.id, c.token) from q.claim('deps_parent') c \g /dev/null
select is((select state from q_data.job where id = :child)::text, 'h', 'key slot taken: the ready child is held');
select q.complete(c.id, c.token) from q.claim('deps_key') c where c.id = :busy \g /dev/null
select is((select state from q_data.job where id = :child)::text, 'w', 'the slot passed on: the child waits');

select * from finish();
rollback;
