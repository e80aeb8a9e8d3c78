-- q.jobs says each job's concurrency key, live or finished, so a client in
-- any language sees it without the producer also putting it in the payload
-- (0007 had no such column).
begin;
select plan(3);

select q.configure('keyed', key_concurrency => 1) \g /dev/null
select q.enqueue('keyed', '1', concurrency_key => 'acme') as first \gset
select q.enqueue('keyed', '2', concurrency_key => 'acme') as second \gset
select q.enqueue('keyed', '3') as plain \gset

select is((select concurrency_key from q.jobs(id => :first)), 'acme', 'a waiting job shows its key');
select is((select concurrency_key from q.jobs(id => :plain)), null, 'a job without one shows NULL');
select q.cancel(:second) \g /dev/null
select is((select concurrency_key from q.jobs(id => :second)), 'acme', 'a finished (cancelled) job keeps it');

select * from finish();
rollback;
