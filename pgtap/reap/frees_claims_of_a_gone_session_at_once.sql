-- A claim whose owner session is gone (no backend with its pid and
-- backend_start) is reaped at once, long before its lease would run out. In
-- one transaction a gone session is simulated by a q_data.session row naming a
-- backend that does not exist (pid 0 is never a backend).
begin;
select plan(4);

insert into q_data.session (key, pid, backend_start) values (2000000001, 0, now() - interval '1 hour');
select q.enqueue('gone', '{}') as job_id \gset
select q.claim('gone', 1, lease => '1 hour', owner => 2000000001) \g /dev/null

select is(q.reap(), 1, 'the claim of a session that is gone is reaped at once');
select is((select state::text || ' ' || crashes from q_data.job where id = :job_id), 'w 1', 'the job is waiting again, one crash spent');
select is((select errors->0->>'error' from q_data.job where id = :job_id), 'claim lost (worker session ended)',
  'errors say the worker session ended');
select is((select count(*)::integer from q_data.session where key = 2000000001), 0, 'the gone session''s row is deleted');

select * from finish();
rollback;
