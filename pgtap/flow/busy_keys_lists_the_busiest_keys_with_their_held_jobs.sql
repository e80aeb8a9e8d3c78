-- q.busy_keys says which concurrency keys are busy, the busiest first, with
-- their admitted, running and held jobs; max_rows caps the keys per queue (22023
-- outside 1..1000); queues without key_concurrency are not listed.
begin;
select plan(5);

select q.configure('bk', key_concurrency => 2) \g /dev/null
select q.enqueue('bk', '{}', concurrency_key => 'acme') from generate_series(1, 5) g \g /dev/null
select q.enqueue('bk', '{}', concurrency_key => 'tiny') \g /dev/null
select q.enqueue('plain', '{}') \g /dev/null
select count(*) from q.claim('bk', 1) \g /dev/null   -- one run of acme

select results_eq(
  $$ select queue, key, admitted, running, held from q.busy_keys() $$,
  $$ values ('bk', 'acme', 2, 1, 3::bigint), ('bk', 'tiny', 1, 0, 0::bigint) $$,
  'acme: 2 admitted (1 running), 3 held; tiny: 1 admitted; the plain queue is not listed');
select results_eq(
  $$ select key from q.busy_keys('bk', max_rows => 1) $$,
  $$ values ('acme') $$,
  'max_rows => 1 keeps the busiest key');
select is_empty($$ select * from q.busy_keys('plain') $$, 'a queue without key_concurrency has no busy keys');
select throws_ok($$ select * from q.busy_keys(max_rows => 0) $$, '22023', null, 'max_rows = 0 is rejected');
select throws_ok($$ select * from q.busy_keys(max_rows => 1001) $$, '22023', null, 'max_rows > 1000 is rejected');

select * from finish();
rollback;
