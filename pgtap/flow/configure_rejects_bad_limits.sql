-- Bad flow-control settings raise 22023 and write nothing: zero and negative
-- limits, absurd ones, a period <= 0 or over a day, ordered with K > 1,
-- unknown or contradictory unlimit names.
begin;
select plan(13);
\ir ../_helpers.psql

select q.configure('bad') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.configure('bad', concurrency => 0) $$, '22023', null, 'concurrency 0');
select throws_ok($$ select q.configure('bad', concurrency => -3) $$, '22023', null, 'negative concurrency');
select throws_ok($$ select q.configure('bad', concurrency => 10001) $$, '22023', null, 'concurrency over 10000');
select throws_ok($$ select q.configure('bad', key_concurrency => 0) $$, '22023', null, 'key_concurrency 0');
select throws_ok($$ select q.configure('bad', key_concurrency => 1001) $$, '22023', null, 'key_concurrency over 1000');
select throws_ok($$ select q.configure('bad', rate => 0) $$, '22023', null, 'rate 0');
select throws_ok($$ select q.configure('bad', rate => 100001) $$, '22023', null, 'rate over 100000');
select throws_ok($$ select q.configure('bad', rate => 10, per => '0') $$, '22023', null, 'a period of 0');
select throws_ok($$ select q.configure('bad', rate => 10, per => '2 days') $$, '22023', null, 'a period over a day');
select throws_ok($$ select q.configure('bad', ordered => true, key_concurrency => 2) $$, '22023', null, 'ordered with key_concurrency 2');
select throws_ok($$ select q.configure('bad', unlimit => array['speed']) $$, '22023', null, 'an unknown limit to remove');
select throws_ok($$ select q.configure('bad', concurrency => 3, unlimit => array['concurrency']) $$, '22023', null,
  'setting and removing one limit at once');
select is(pg_temp.pgq_state(), :'before', 'nothing was written');

select * from finish();
rollback;
