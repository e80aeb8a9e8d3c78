-- n must be 1..1000, a lease positive, an owner a key or 0 (22023); the
-- queue name valid (22023) and not NULL (22004). A rejected claim claims
-- nothing.
begin;
select plan(14);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('claim', '[1, 2, 3]') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select * from q.claim('claim', 0) $$, '22023', null, 'n = 0 is rejected');
select throws_ok($$ select * from q.claim('claim', -1) $$, '22023', null, 'n < 0 is rejected');
select throws_ok($$ select * from q.claim('claim', 1001) $$, '22023', null, 'n > 1000 is rejected');
select throws_ok($$ select * from q.claim('claim', null) $$, '22023', null, 'a NULL n is rejected');
select throws_ok($$ select * from q.claim('claim', 1, lease => '0 seconds') $$, '22023', null, 'a zero lease is rejected');
select throws_ok($$ select * from q.claim('claim', 1, lease => '-5 minutes') $$, '22023', null, 'a negative lease is rejected');
select throws_ok($$ select * from q.claim('claim', 1, owner => -1) $$, '22023', null, 'a negative owner key is rejected');
select throws_ok($$ select * from q.claim('', 1) $$, '22023', null, 'an empty queue name is rejected');
select throws_ok($$ select * from q.claim('no such;queue', 1) $$, '22023', null, 'a malformed queue name is rejected');
select throws_ok(format($$ select * from q.claim(%L, 1) $$, repeat('q', 64)), '22023', null, 'an over-long queue name is rejected');
select throws_ok($$ select * from q.claim(null, 1) $$, '22004', null, 'a NULL queue name is rejected (22004)');

select is(pg_temp.pgq_state(), :'before', 'the rejected claims changed nothing');
select is((select count(*)::integer from q_data.job where state = 'w'), 3, 'every job is still waiting');
select is((select count(*)::integer from q.claim('claim', 1000)), 3, 'n = 1000 is accepted');

select * from finish();
rollback;
