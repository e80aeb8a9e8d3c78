-- Queue names must match ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$ (22023) and not
-- be NULL (22004). A rejected enqueue creates neither a job nor a queue row.
begin;
select plan(16);
\ir ../_helpers.psql

select q.enqueue('existing', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.enqueue('', '{}') $$, '22023', null, 'an empty queue name is rejected');
select throws_ok(format($$ select q.enqueue(%L, '{}') $$, repeat('a', 64)), '22023', null, 'a 64-character queue name is rejected');
select throws_ok($$ select q.enqueue('has space', '{}') $$, '22023', null, 'a queue name with a space is rejected');
select throws_ok($$ select q.enqueue('quo''te', '{}') $$, '22023', null, 'a queue name with a quote is rejected');
select throws_ok($$ select q.enqueue('a"b', '{}') $$, '22023', null, 'a queue name with a double quote is rejected');
select throws_ok($$ select q.enqueue('x;drop table q_data.job', '{}') $$, '22023', null, 'a queue name with a semicolon is rejected');
select throws_ok($$ select q.enqueue('żółw', '{}') $$, '22023', null, 'a queue name with non-ASCII letters is rejected');
select throws_ok($$ select q.enqueue('-leading', '{}') $$, '22023', null, 'a queue name starting with a punctuation mark is rejected');
select throws_ok($$ select q.enqueue(E'tab\there', '{}') $$, '22023', null, 'a queue name with a control character is rejected');
select throws_ok($$ select q.enqueue(E'trailing\n', '{}') $$, '22023', null, 'a queue name with a trailing newline is rejected');
select throws_ok($$ select q.enqueue(null, '{}') $$, '22004', null, 'a NULL queue name is rejected with 22004');

select is(pg_temp.pgq_state(), :'before', 'the rejected enqueues wrote nothing: no job, no queue row');

select lives_ok(format($$ select q.enqueue(%L, '{}') $$, repeat('a', 63)), 'a 63-character queue name is accepted');
select lives_ok($$ select q.enqueue('A', '{}') $$, 'a one-character queue name is accepted');
select lives_ok($$ select q.enqueue('0Az_.:-', '{}') $$, 'letters, digits and _ . : - are accepted');
select is((select count(*)::integer from q_data.queue), 4, 'each accepted name made its queue row');

select * from finish();
rollback;
