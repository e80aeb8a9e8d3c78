-- max_jobs must be 1..100000 (22023).
begin;
select plan(4);

select throws_ok($$ select q.reap(0) $$, '22023', null, 'max_jobs 0 is rejected');
select throws_ok($$ select q.reap(-1) $$, '22023', null, 'a negative max_jobs is rejected');
select throws_ok($$ select q.reap(100001) $$, '22023', null, 'max_jobs over 100000 is rejected');
select throws_ok($$ select q.reap(null) $$, '22023', null, 'a NULL max_jobs is rejected');

select * from finish();
rollback;
