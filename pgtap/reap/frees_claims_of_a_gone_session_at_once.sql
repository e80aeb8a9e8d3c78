-- A claim whose owner key nobody holds is proof its session is gone: reap
-- returns it at once, long before its lease would run out. (In one
-- transaction a gone session is simulated with a key that was never taken.)
begin;
select plan(3);

select q.enqueue('gone', '{}') as job_id \gset
select q.claim('gone', 1, lease => '1 hour', owner => 2000000001) \g /dev/null

select is(q.reap(), 1, 'the claim of a session that is gone is reaped at once');
select is((select state::text || ' ' || crashes from q.job where id = :job_id), 'w 1', 'the job is waiting again, one crash spent');
select is((select errors->0->>'error' from q.job where id = :job_id), 'claim lost (worker session ended)',
  'errors say the worker session ended');

select * from finish();
rollback;
