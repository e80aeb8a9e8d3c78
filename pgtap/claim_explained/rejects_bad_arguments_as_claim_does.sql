-- q.claim_explained checks its arguments as q.claim does (it is q.claim
-- underneath): 22023 for a bad n, lease, owner or name, 22004 for a NULL
-- name; a rejected claim claims nothing.
begin;
select plan(7);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('ce', '[1, 2, 3]') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select * from q.claim_explained('ce', 0) $$, '22023', null, 'n = 0 is rejected');
select throws_ok($$ select * from q.claim_explained('ce', 1001) $$, '22023', null, 'n > 1000 is rejected');
select throws_ok($$ select * from q.claim_explained('ce', 1, lease => '0 seconds') $$, '22023', null, 'a zero lease is rejected');
select throws_ok($$ select * from q.claim_explained('ce', 1, owner => -1) $$, '22023', null, 'a negative owner key is rejected');
select throws_ok($$ select * from q.claim_explained('no such;queue', 1) $$, '22023', null, 'a malformed queue name is rejected');
select throws_ok($$ select * from q.claim_explained(null, 1) $$, '22004', null, 'a NULL queue name is rejected (22004)');

select is(pg_temp.pgq_state(), :'before', 'the rejected claims changed nothing');

select * from finish();
rollback;
