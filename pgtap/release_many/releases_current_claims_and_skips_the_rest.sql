-- release_many releases the pairs that are current claims and returns their
-- ids; wrong tokens are left alone. Bad arrays are rejected.
begin;
select plan(5);

select count(*) from q.enqueue_many('rel', '[1, 2, 3]') \g /dev/null
create temp table got as select * from q.claim('rel', 3);
select id as kept_id from got where payload = '3' \gset

select results_eq(
  $$ select r from q.release_many(
       (select array_agg(id order by id) from got),
       (select array_agg(case when payload = '3' then gen_random_uuid() else token end order by id) from got)) r
     order by r $$,
  $$ select id from got where payload <> '3' order by id $$,
  'the ids of the current claims are returned');
select is((select count(*)::integer from q_data.job where state = 'w' and attempt = 0), 2, 'they are waiting again, attempt taken back');
select is((select state::text from q_data.job where id = :kept_id), 'r', 'the pair with a wrong token is still running');
select throws_ok($$ select q.release_many(array[1, 2]::bigint[], array[gen_random_uuid()]) $$, '22023', null,
  'arrays of different lengths are rejected');
select throws_ok($$ select q.release_many(null, array[gen_random_uuid()]) $$, '22004', null, 'NULL ids are rejected');

select * from finish();
rollback;
